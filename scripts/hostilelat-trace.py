#!/usr/bin/env python3
"""Where hostilelat's victim waited: its rounds lined up with a runtime
trace of gosentinel (docs/security.md, "Where the victim waits").

usage: scripts/hostilelat-trace.py PARSED SAMPLES [THRESHOLD_MS]

  go build -tags cpuprof -o /tmp/gsprof ./cmd/gosentinel
  GOSENTINEL_CPUPROF=/tmp/prof go run ./bench/cmd/hostilelat -runs 1 \
      -loads large -samples /tmp/s -sentinel-bin /tmp/gsprof -out /tmp/p.json
  go tool trace -d=parsed /tmp/prof/<pid>-<t>.trace > /tmp/parsed.txt
  scripts/hostilelat-trace.py /tmp/parsed.txt /tmp/s/large-gosentinel-1.txt 10

PARSED is `go tool trace -d=parsed` of one 5 s trace window (its clock
snapshot gives the wall time), SAMPLES the run's -samples file (the
header's pid names the trace). The victim's goroutine is the client
goroutine woken most often inside the rounds. It prints the goroutine's
longest run-queue waits, each round of THRESHOLD_MS (default 10) or more
with the goroutine's transitions and what ran on each P meanwhile, and
every round split into: pre (the victim's send until the goroutine was
made runnable), q (runnable until running: Go's run queue), s (serving),
mid (the first reply written until the second request was seen: the
victim's process and the poller), post (the last reply until the round
ended).
"""
import sys, re, collections, datetime

parsed, samplesf = sys.argv[1], sys.argv[2]
thr = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0

hdr = re.compile(r'^M=(-?\d+) P=(-?\d+) G=(-?\d+) (\w+) Time=(\d+)(.*)$')
st = re.compile(r'GoID=(\d+) (\w+)->(\w+) Reason="([^"]*)"')
pst = re.compile(r'ProcID=(\d+) (\w+)->(\w+)')
sync_trace = sync_wall = None
events = []  # (time, M, P, G, kind, rest, stack)
cur = None
for line in open(parsed):
    if line.startswith('\t') or line.startswith(' '):
        if cur is not None and len(cur[6]) < 12:
            cur[6].append(line.strip())
        continue
    m = hdr.match(line)
    if not m:
        continue
    M, P, G, kind, t, rest = m.groups()
    t = int(t)
    if kind == 'Sync' and 'Wall=' in rest and sync_trace is None:
        tr = int(re.search(r'Trace=(\d+)', rest).group(1))
        w = re.search(r'Wall=(\S+)', rest).group(1)
        # 2026-12-04T08:48:41.46006518Z
        base, frac = w.rstrip('Z').split('.')
        dt = datetime.datetime.strptime(base, '%Y-%m-%dT%H:%M:%S').replace(tzinfo=datetime.timezone.utc)
        wall = int(dt.timestamp()) * 10**9 + int(frac.ljust(9, '0')[:9])
        sync_trace, sync_wall = tr, wall
    cur = [t, int(M), int(P), int(G), kind, rest, []]
    events.append(cur)
events.sort(key=lambda e: e[0])
off = sync_wall - sync_trace
def wall(t): return t + off

# goroutine transitions
gtr = collections.defaultdict(list)  # gid -> [(t, from, to, reason, P, G, M, stack)]
for e in events:
    if e[4] != 'StateTransition':
        continue
    m = st.search(e[5])
    if m:
        gid = int(m.group(1))
        gtr[gid].append((e[0], m.group(2), m.group(3), m.group(4), e[2], e[3], e[1], e[6]))

# client reader goroutines: block on network with server.(*client) in stack
def is_client(stack):
    return any('server.(*client)' in s for s in stack)
clients = {g for g, trs in gtr.items() if any(x[3] == 'network' and is_client(x[7]) for x in trs)}

samples = []
for line in open(samplesf):
    if line.startswith('#'):
        continue
    ph, s, d, ok = line.split()
    samples.append((ph, int(s), int(d), ok == '1'))
t0, t1 = wall(events[0][0]), wall(events[-1][0])
insamp = [s for s in samples if s[1] >= t0 and s[1] + s[2] <= t1]
print(f"trace window {datetime.datetime.utcfromtimestamp(t0/1e9)} .. {(t1-t0)/1e9:.2f}s; samples in window {len(insamp)}; client goroutines {len(clients)}")

# victim goroutine: most network wakes inside sample windows
score = collections.Counter()
for g in clients:
    wakes = [wall(x[0]) for x in gtr[g] if x[1] == 'Waiting' and x[2] == 'Runnable']
    i = 0
    for ph, s, d, ok in insamp:
        for w in wakes:
            if s <= w <= s + d:
                score[g] += 1
print("candidate victims:", score.most_common(3))
vic = score.most_common(1)[0][0]

def fmt(t): return f"{(wall(t) - t0)/1e6:9.3f}"

# per P: what ran when
prun = collections.defaultdict(list)  # P -> [(start, end, gid)]
running = {}
for g, trs in gtr.items():
    for x in trs:
        t, fr, to, reason, P, G, M, stack = x
        if to == 'Running':
            running[g] = (t, P)
        elif fr == 'Running' and g in running:
            s, p = running.pop(g)
            prun[p].append((s, t, g, reason))
gname = {}
for g, trs in gtr.items():
    for x in trs:
        if x[7]:
            fr = [s for s in x[7] if '@' in s]
            name = next((s.split(' @')[0] for s in fr if 'gosentinel' in s and 'runtime.' not in s.split(' @')[0][:8]), fr[-1].split(' @')[0] if fr else '?')
            gname[g] = name
            break

# latency stats of the victim goroutine
lat = []
trs = gtr[vic]
last_runnable = None
for x in trs:
    if x[2] == 'Runnable':
        last_runnable = x
    elif x[2] == 'Running' and last_runnable is not None:
        lat.append((x[0] - last_runnable[0], last_runnable[0], last_runnable[3], last_runnable[4], last_runnable[5]))
        last_runnable = None
lat.sort(reverse=True)
print(f"victim g{vic}: {len(lat)} runnable->running; worst:")
for l in lat[:10]:
    print(f"  {l[0]/1e6:7.3f} ms at {fmt(l[1])} (made runnable from P={l[3]} G={l[4]} reason={l[2]!r})")

slow = [s for s in insamp if s[2] >= thr * 1e6]
print(f"slow rounds (>= {thr} ms) in window: {len(slow)} of {len(insamp)}")
for ph, s, d, ok in slow[:40]:
    a, b = s - off, s + d - off
    print(f"-- round {ph} at {(s - t0)/1e6:9.3f} ms dur {d/1e6:.2f} ms")
    for x in trs:
        if a - 2e6 <= x[0] <= b + 1e6:
            print(f"   {fmt(x[0])} g{vic} {x[1]}->{x[2]} {x[3]} P={x[4]} by G={x[5]}")
    for p in sorted(prun):
        segs = [(s_, e_, g, r) for (s_, e_, g, r) in prun[p] if e_ >= a and s_ <= b]
        desc = ", ".join(f"g{g}:{gname.get(g, '?').split('/')[-1]} {max(s_, a) and (min(e_, b) - max(s_, a))/1e6:.1f}ms->{r}" for s_, e_, g, r in segs[:12])
        print(f"   P{p}: {desc}")

# decomposition of every round in the window
print("\ndecomposition (ms): pre=request sent->goroutine runnable (not noticed), q=runnable->running (Go run queue), s=serving, mid=reply1->request2 (victim side+net), post=last block->round end")
rows = []
for ph, s, d, ok in insamp:
    a, b = s - off, s + d - off
    xs = [x for x in trs if a <= x[0] <= b]
    w = [x[0] for x in xs if x[1] == 'Waiting' and x[2] == 'Runnable']
    r = [x[0] for x in xs if x[1] == 'Runnable' and x[2] == 'Running']
    bl = [x[0] for x in xs if x[1] == 'Running' and x[2] == 'Waiting']
    if len(w) < 2 or len(r) < 2 or len(bl) < 2:
        continue
    pre = w[0] - a; q1 = r[0] - w[0]; s1 = bl[0] - r[0]; mid = w[1] - bl[0]; q2 = r[1] - w[1]; s2 = bl[1] - r[1]; post = b - bl[-1]
    rows.append((d, pre, q1 + q2, s1 + s2, mid, post, ph))
def summ(sel, label):
    if not sel: print(label, "none"); return
    n = len(sel)
    tot = [sum(x[i] for x in sel) / n / 1e6 for i in range(6)]
    print(f"{label}: n={n} mean dur {tot[0]:.2f}: pre {tot[1]:.2f} q {tot[2]:.2f} s {tot[3]:.2f} mid {tot[4]:.2f} post {tot[5]:.2f}")
summ([x for x in rows if x[6] == 'load'], 'load rounds')
summ([x for x in rows if x[6] == 'load' and x[0] >= thr * 1e6], f'load rounds >= {thr} ms')
summ([x for x in rows if x[6] == 'base'], 'base rounds')
big = sorted([x for x in rows if x[0] >= thr * 1e6], reverse=True)[:15]
for x in big:
    print("  " + " ".join(f"{v/1e6:7.2f}" for v in x[:6]), x[6])
