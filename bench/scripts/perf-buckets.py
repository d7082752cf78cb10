#!/usr/bin/env python3
# perf-buckets.py N FILE... — sorts the samples of query-perf.sh recordings
# (perf record -F 5000 -g over exactly N requests) into buckets by call
# stack and prints microseconds of samples per request for each
# (docs/bench.md, "The client port, round four").
import sys,subprocess,collections
HZ=5000
def classify(stack):
    s=" ".join(stack)
    if 'ksys_write' in s or 'do_writev' in s: return 'kernel write (tcp send+loopback rx)'
    if 'ksys_read' in s: return 'kernel read'
    if 'epoll_pwait' in s or 'epoll_wait' in s: return 'epoll_wait'
    if 'runtime.sysmon' in s: return 'sysmon'
    if 'gcBgMarkWorker' in s or 'bgsweep' in s or 'bgscavenge' in s or 'gcDrain' in s: return 'gc background'
    if 'internal/runtime.(*Runtime)' in s or 'internal/link.' in s or 'internal/core.' in s: return 'sentinel core+links'
    if 'futex' in s: return 'futex (thread wake/sleep)'
    if 'runtime.schedule' in s or 'findRunnable' in s or 'runtime.mcall' in s or 'gopark' in s or 'park_m' in s: return 'go scheduler (other)'
    if 'mallocgc' in s: return 'malloc'
    if 'exit_to_user_mode' in s or 'finish_task_switch' in s or 'asm_sysvec' in s or 'irq' in s: return 'kernel other (switch/irq)'
    if any(f.startswith('[k]') for f in stack[:1]) : return 'kernel other'
    return 'user code'
N=int(sys.argv[1])
for f in sys.argv[2:]:
    out=subprocess.run(['perf','script','-i',f,'-F','ip,sym'],capture_output=True,text=True).stdout
    cnt=collections.Counter(); n=0
    for block in out.split('\n\n'):
        lines=[l.strip() for l in block.strip().split('\n') if l.strip()]
        if not lines: continue
        syms=[l.split(None,1)[1] if ' ' in l else l for l in lines]
        kern=lines[0].startswith('ffffffff')
        c=classify(syms)
        if c=='user code' and kern: c='kernel other'
        cnt[c]+=1; n+=1
    print(f"== {f}: {n} samples = {n/HZ*1e6/N:.2f} us/req")
    for k,v in cnt.most_common(): print(f"  {k:40} {v:6} {v/HZ*1e6/N:6.2f} us/req")
