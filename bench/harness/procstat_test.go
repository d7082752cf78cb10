package harness

import (
	"os"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	runParseCases(t, parseStatCPU, ErrProcFormat, []parseCase[time.Duration]{
		{"plain", "1234 (redis-sentinel) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 5 0 100 1000 200", 3 * time.Second, false},
		{"comm with spaces and parens", "99 (a b) c)) R 1 1 1 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 1 1 1", 100 * time.Millisecond, false},
		{"no paren", "1234 redis S 1", 0, true},
		{"too short", "1 (x) S 1 2 3", 0, true},
		{"not a number", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 x 3 0", 0, true},
	})
}

func TestParseStatusRSS(t *testing.T) {
	runParseCases(t, parseStatusRSS, ErrProcFormat, []parseCase[int64]{
		{"ok", "Name:\tx\nVmPeak:\t  999 kB\nVmRSS:\t   33792 kB\nThreads: 5\n", 33792 * 1024, false},
		{"missing", "Name:\tx\n", 0, true},
		{"bad unit", "VmRSS:\t 12 MB\n", 0, true},
		{"bad number", "VmRSS:\t x kB\n", 0, true},
	})
}

// TestCPUTimeSelf reads this process's own /proc files: CPU time never goes
// backwards and RSS is positive.
func TestCPUTimeSelf(t *testing.T) {
	pid := os.Getpid()
	c0, err := CPUTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i
	}
	_ = x
	c1, err := CPUTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	if c1 < c0 {
		t.Errorf("CPU time went backwards: %v then %v", c0, c1)
	}
	rss, err := RSS(pid)
	if err != nil || rss <= 0 {
		t.Errorf("RSS = %d, %v", rss, err)
	}
	if _, err := CPUTime(-1); err == nil {
		t.Errorf("CPUTime(-1) succeeded")
	}
}

func TestParseNetstat(t *testing.T) {
	const in = "TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 0 1261 1261\nIpExt: InNoRoutes\nIpExt: 5\n"
	tests := []struct {
		prefix, field string
		want          int64
		wantErr       bool
	}{
		{"TcpExt:", "ListenOverflows", 1261, false},
		{"IpExt:", "InNoRoutes", 5, false},
		{"TcpExt:", "Nope", 0, true},
		{"MpExt:", "ListenOverflows", 0, true},
	}
	for _, tt := range tests {
		got, err := parseNetstat(in, tt.prefix, tt.field)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("parseNetstat(%s %s) = %d, %v; want %d, err %v", tt.prefix, tt.field, got, err, tt.want, tt.wantErr)
		}
	}
	if _, err := parseNetstat("TcpExt: A B\nTcpExt: 1\n", "TcpExt:", "A"); err == nil {
		t.Errorf("mismatched lines accepted")
	}
}
