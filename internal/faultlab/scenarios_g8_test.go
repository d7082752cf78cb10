package faultlab

import (
	"strconv"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

func TestG8Plan(t *testing.T) {
	for _, c := range []struct {
		limit       uint64
		idle, maxcl int
		capped      bool
	}{
		{20000, 10000, 10264, false}, // this machine's hard limit
		{1 << 20, 10000, 10264, false},
		{4096, 4096 - g8RunnerReserve - g8Slowloris - g8Overflow - g8Headroom, 4096 - g8RunnerReserve - g8Overflow, true},
		{1024, 0, g8Slowloris + g8Headroom, true},
	} {
		p := g8Plan(c.limit)
		if p.Idle != c.idle || p.MaxClients != c.maxcl || p.Capped != c.capped {
			t.Errorf("g8Plan(%d) = idle %d maxclients %d capped %v, want %d %d %v", c.limit, p.Idle, p.MaxClients, p.Capped, c.idle, c.maxcl, c.capped)
		}
		// The load generator holds the flood, the overflow and its
		// reserve; the sentinel maxclients and its own reserve.
		if p.Idle > 0 && (uint64(p.MaxClients+g8Overflow+g8RunnerReserve) > c.limit || uint64(p.MaxClients+g8SentinelReserve) > c.limit) {
			t.Errorf("g8Plan(%d): maxclients %d does not fit", c.limit, p.MaxClients)
		}
	}
}

func TestG8Registered(t *testing.T) {
	s, ok := Lookup("G8")
	if !ok {
		t.Fatal("G8 not registered")
	}
	if !s.ExpectFailover || s.Post == nil || s.Schedule == nil || s.Mixed || !s.Solo {
		t.Fatalf("G8: ExpectFailover %v Post %v Schedule %v Mixed %v Solo %v", s.ExpectFailover, s.Post != nil, s.Schedule != nil, s.Mixed, s.Solo)
	}
	top := &Topology{SentinelHosts: []string{"h1", "h2", "h3"}}
	if got := s.Setup.SentinelExtra(top, "h1"); got != "" {
		t.Errorf("h1 extra %q, want none", got)
	}
	want := "maxclients " + strconv.Itoa(g8CurrentPlan().MaxClients) + "\n"
	if got := s.Setup.SentinelExtra(top, g8Host); got != want {
		t.Errorf("%s extra %q, want %q", g8Host, got, want)
	}
}

func TestG8Participation(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ip := "198.18.1.3"
	evs := []workload.Event{
		{At: at(-500), Sentinel: "sentinel-h3", Channel: "+odown", Payload: "master mym 198.18.1.1 6379 #quorum 2/2"}, // before the fault
		{At: at(2100), Sentinel: "sentinel-h3", Channel: "+odown", Payload: "master mym 198.18.1.1 6379 #quorum 3/2"},
		{At: at(2200), Sentinel: "sentinel-h3", Channel: "+odown", Payload: "master other 198.18.1.9 6379 #quorum 3/2"},
		{At: at(2300), Sentinel: "sentinel-h3", Channel: "+vote-for-leader", Payload: "abc 1"},
		{At: at(2300), Sentinel: "sentinel-h2", Channel: "+vote-for-leader", Payload: "abc 1"},
		{At: at(-3000), Sentinel: "sentinel-h1", Channel: "+sdown", Payload: "sentinel def " + ip + " 26379 @ mym 198.18.1.1 6379"}, // before the flood
		{At: at(-1000), Sentinel: "sentinel-h1", Channel: "+sdown", Payload: "sentinel def " + ip + " 26379 @ mym 198.18.1.1 6379"},
		{At: at(-1000), Sentinel: "sentinel-h1", Channel: "+sdown", Payload: "sentinel xyz 198.18.1.2 26379 @ mym 198.18.1.1 6379"},
		{At: at(2000), Sentinel: "sentinel-h2", Channel: "+sdown", Payload: "master mym 198.18.1.1 6379"},
		{At: at(2000), Sentinel: "sentinel-h2", Channel: "+sdown", Payload: "slave " + ip + ":6379 " + ip + " 6379 @ mym 198.18.1.1 6379"},
	}
	evs = append(evs,
		workload.Event{At: at(1900), Sentinel: "sentinel-h3", Channel: "+sdown", Payload: "master mym 198.18.1.1 6379"},
		workload.Event{At: at(1950), Sentinel: "sentinel-h3", Channel: "+sdown", Payload: "master other 198.18.1.9 6379"},
		workload.Event{At: at(1800), Sentinel: "sentinel-h1", Channel: "+sdown", Payload: "master mym 198.18.1.1 6379"})
	for _, ms := range []int{-2500, -1900, 100, 2000, 2100} { // one before the flood; then gaps 0.1, 2.0, 1.9, 0.1 s and 0.9 s to the release
		evs = append(evs, workload.Event{At: at(ms), Sentinel: "sentinel-h1", Channel: workload.HelloChannel, Payload: ip + ",26379,abc,0,mym,198.18.1.1,6379,0"})
	}
	evs = append(evs, workload.Event{At: at(2200), Sentinel: "sentinel-h1", Channel: workload.HelloChannel, Payload: "198.18.1.2,26379,def,0,mym,198.18.1.1,6379,0"})
	p := g8Participation(evs, "sentinel-h3", ip, t0, at(-2000), at(3000))
	if p.Hellos != 4 || p.HelloMaxGap != 2*time.Second {
		t.Fatalf("hellos %d, longest gap %v; want 4, 2s", p.Hellos, p.HelloMaxGap)
	}
	if q := g8Participation(evs, "sentinel-h3", ip, t0, at(-2000), at(6000)); q.HelloMaxGap != 3900*time.Millisecond {
		t.Fatalf("gap to a late release %v, want 3.9s", q.HelloMaxGap)
	}
	if q := g8Participation(nil, "sentinel-h3", ip, t0, at(-2000), at(6000)); q.Hellos != 0 || q.HelloMaxGap != -1 {
		t.Fatalf("no hellos: %+v", q)
	}
	if p.SDown != 1 || p.ODown != 1 || p.Votes != 1 || p.PeerSDown != 1 {
		t.Fatalf("%+v, want sdown 1 odown 1 votes 1 peer sdown 1", p)
	}
	if !p.SDownAt.Equal(at(1900)) || !p.PeerSDownAt.Equal(at(1800)) {
		t.Fatalf("sdown at %v, peers' first at %v", p.SDownAt, p.PeerSDownAt)
	}
}

func TestLatencyStats(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 200; i++ {
		ds = append(ds, time.Duration(i)*100*time.Microsecond) // 0.1 … 20 ms
	}
	st := latencyStats(ds)
	if st.n != 200 || st.p50 != 10 || st.p99 != 19.8 || st.max != 20 || st.over10Pct != 50 {
		t.Fatalf("stats %+v", st)
	}
	if st := latencyStats(nil); st.n != 0 || st.max != 0 {
		t.Fatalf("empty: %+v", st)
	}
}

func TestProcParsers(t *testing.T) {
	limits := "Limit                     Soft Limit           Hard Limit           Units     \n" +
		"Max cpu time              unlimited            unlimited            seconds   \n" +
		"Max open files            10032                20000                files     \n"
	if n, err := parseNoFile(limits); err != nil || n != 10032 {
		t.Fatalf("parseNoFile = %d, %v", n, err)
	}
	status := "Name:\tredis-sentinel\nVmHWM:\t   12345 kB\nVmRSS:\t    9000 kB\n"
	if n, err := parseStatusKB(status, "VmHWM"); err != nil || n != 12345 {
		t.Fatalf("VmHWM = %d, %v", n, err)
	}
	if _, err := parseStatusKB(status, "VmSwap"); err == nil {
		t.Fatal("VmSwap: no error")
	}
}

func TestCPUFigures(t *testing.T) {
	t0 := time.Unix(0, 0)
	var at []time.Time
	var ticks []int64
	for i := 0; i <= 20; i++ { // 5 s every 250 ms; 2.5 → 3.5 s at one full core, else idle
		at = append(at, t0.Add(time.Duration(i)*250*time.Millisecond))
		n := int64(0)
		for j := 1; j <= i; j++ {
			if j > 10 && j <= 14 {
				n += 25
			}
		}
		ticks = append(ticks, n)
	}
	peak, total := cpuFigures(at, ticks, t0, t0.Add(5*time.Second))
	if peak != 100 || total != 1 {
		t.Fatalf("peak %g total %g, want 100 1", peak, total)
	}
}
