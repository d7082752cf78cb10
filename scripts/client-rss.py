#!/usr/bin/env python3
"""Peak RSS of redis-sentinel and gosentinel under one hostile client load
(issue 15 item 3, docs/security.md "Memory per client").

usage: scripts/client-rss.py GOSENTINEL_BINARY LOAD [REDIS_SENTINEL=redis-sentinel]

LOAD is one of
  slowsub  one subscriber (PSUBSCRIBE *) that never reads while events flow:
           200 monitored masters (unreachable ports), SENTINEL RESET * in a
           loop until 40 MB of +reset-master events were published or the
           subscriber was disconnected;
  large    the same with 8 KiB master names (events of 1023 bytes, the
           most a sentinel publishes), plus one subscriber that reads;
  idle     4000 connections, one PING each (like scripts/idle-rss.py);
  all      the three above in one run, then a summary table.

Both sentinels run side by side with the same config in a temporary
directory, on kernel-chosen free ports, and are killed by PID at the end.
It prints VmHWM (peak RSS) before and after the load for each and the
ratio gosentinel / redis-sentinel. Run it on a quiet machine; single runs
on a shared 2-core box move by a few MiB.
"""
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """utime+stime of pid in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cmd(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def read_reply(f):
    line = f.readline()
    if not line:
        raise EOFError("connection closed")
    t, rest = line[:1], line[1:-2]
    if t in (b"+", b"-", b":"):
        return line
    if t == b"$":
        n = int(rest)
        return f.read(n + 2) if n >= 0 else None
    if t == b"*":
        return [read_reply(f) for _ in range(int(rest))]
    raise ValueError(line)


def start(binary, port, tmp, name, masters, namelen):
    d = os.path.join(tmp, name)
    os.mkdir(d)
    conf = os.path.join(d, "sentinel.conf")
    with open(conf, "w") as f:
        f.write(f"port {port}\nbind 127.0.0.1\ndir {d}\nmaxclients 10000\n")
        for i in range(masters):
            mname = (f"m{i:04d}-" + "x" * namelen)[: max(namelen, 6)]
            # unreachable ports: nothing listens on 1..
            f.write(f"sentinel monitor {mname} 127.0.0.1 {1 + i} 2\n")
    p = subprocess.Popen([binary, conf],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=1)
            s.sendall(cmd("PING"))
            if s.recv(64).startswith(b"+PONG"):
                s.close()
                break
        except OSError:
            pass
        if time.time() > deadline or p.poll() is not None:
            p.kill()
            raise SystemExit(f"{binary} did not start")
        time.sleep(0.05)
    return p


def load_events(port, pid, namelen, reader):
    slow = socket.create_connection(("127.0.0.1", port))
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.sendall(cmd("PSUBSCRIBE", "*"))
    time.sleep(0.2)
    rd = None
    if reader:
        rd = socket.create_connection(("127.0.0.1", port))
        rd.sendall(cmd("PSUBSCRIBE", "*"))
        rd.setblocking(False)
    drv = socket.create_connection(("127.0.0.1", port))
    f = drv.makefile("rb")
    sent, target = 0, 40 << 20
    # Events are "master <name> 127.0.0.1 <port>", cut at 1023 bytes by
    # redis-sentinel (sentinelEvent's LOG_MAX_LEN buffer) and gosentinel.
    per_reset = 200 * (45 + min(namelen + 30, 1023))
    resets = 0
    t0 = time.time()
    while sent < target and time.time() - t0 < 120:
        drv.sendall(cmd("SENTINEL", "RESET", "*"))
        read_reply(f)
        resets += 1
        sent += per_reset
        if rd is not None:
            try:
                while rd.recv(1 << 20):
                    pass
            except BlockingIOError:
                pass
    # Is the slow subscriber still connected?
    drv.sendall(cmd("CLIENT", "LIST"))
    cl = read_reply(f)
    subs = cl.count(b"cmd=psubscribe")
    slow.close()
    if rd is not None:
        rd.close()
    drv.close()
    return f"{resets} RESET * ({sent >> 20} MiB of events), psubscribed clients left {subs}"


def load_idle(port, pid, n=4000):
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
    for s in socks:
        s.sendall(b"PING\r\n")
    for s in socks:
        s.recv(16)
    time.sleep(1)
    cur = status(pid, "VmRSS")
    for s in socks:
        s.close()
    return f"{n} idle connections, VmRSS with them {cur} KiB"


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    gos, load = sys.argv[1], sys.argv[2]
    real = sys.argv[3] if len(sys.argv) > 3 else "redis-sentinel"
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 20000), hard))
    if load != "all":
        run(gos, load, real)
        return
    rows = []
    for load in ("slowsub", "large", "idle"):
        print(f"== {load}")
        rows.append((load, run(gos, load, real)))
    print("load     redis-sentinel  gosentinel  ratio")
    for load, res in rows:
        r, g = res["redis-sentinel"], res["gosentinel"]
        print(f"{load:8} {r / 1024:10.1f} MiB {g / 1024:7.1f} MiB  {g / r:.2f}")


def run(gos, load, real):
    """Runs one load against both sentinels; returns their peak VmHWM (KiB)."""
    namelen = {"slowsub": 10, "large": 8192, "idle": 10}[load]
    masters = 200 if load != "idle" else 1
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, binary in (("redis-sentinel", real), ("gosentinel", gos)):
            port = free_port()
            p = start(binary, port, tmp, name, masters, namelen)
            try:
                time.sleep(0.5)
                before = status(p.pid, "VmHWM")
                cpu0 = cpu_seconds(p.pid)
                if load == "idle":
                    what = load_idle(port, p.pid)
                else:
                    what = load_events(port, p.pid, namelen, load == "large")
                time.sleep(0.3)
                peak = status(p.pid, "VmHWM")
                cpu = cpu_seconds(p.pid) - cpu0
                res[name] = peak
                print(f"{name}: VmHWM before {before} KiB, peak {peak} KiB ({peak / 1024:.1f} MiB), CPU during the load {cpu:.2f} s; {what}")
            finally:
                p.kill()
                p.wait()
    print(f"ratio gosentinel/redis-sentinel peak RSS: {res['gosentinel'] / res['redis-sentinel']:.2f}")
    return res


if __name__ == "__main__":
    main()
