#!/usr/bin/env python3
"""Idle-connection memory of a running sentinel (issue 15, docs/security.md).

usage: scripts/idle-rss.py PORT PID [N=4000]
Opens N connections, sends one PING on each (so per-connection buffers are
allocated as in real use), waits 1 s and prints the RSS growth per
connection. Run it against redis-sentinel and gosentinel with the same
config (maxclients above N, ulimit -n above N).
"""
import socket, sys, time

port, pid = int(sys.argv[1]), int(sys.argv[2])
n = int(sys.argv[3]) if len(sys.argv) > 3 else 4000


def rss_kib():
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1])


base = rss_kib()
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
for s in socks:
    s.sendall(b"PING\r\n")
for s in socks:
    s.recv(16)
time.sleep(1)
now = rss_kib()
print(f"base {base} KiB, with {n} idle connections {now} KiB, {(now - base) * 1024 / n:.0f} B per connection")
