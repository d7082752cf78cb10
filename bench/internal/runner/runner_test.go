package runner

import (
	"errors"
	"flag"
	"io"
	"math"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/gosentinel/gosentinel/bench/harness"
	"github.com/gosentinel/gosentinel/internal/faultlab"
)

func TestExtractTable(t *testing.T) {
	out := strings.Join([]string{
		"=== RUN   TestFailoverCompare",
		"    compare_test.go:88: | client | kill → first write (ms) |",
		"    compare_test.go:89: |---|---|",
		"    compare_test.go:90: | ours | 2100 |",
		"| go-redis | 2279 |",
		"    compare_test.go:91: run 1: done | not a table",
		"--- PASS: TestFailoverCompare (20.00s)",
	}, "\n")
	want := "| client | kill → first write (ms) |\n|---|---|\n| ours | 2100 |\n| go-redis | 2279 |\n"
	if got := ExtractTable(out); got != want {
		t.Errorf("ExtractTable =\n%q\nwant\n%q", got, want)
	}
	if got := ExtractTable("ok  pkg 1s\n"); got != "" {
		t.Errorf("ExtractTable of no table = %q", got)
	}
}

func TestConfigFinish(t *testing.T) {
	tests := []struct {
		args    []string
		want    []int
		wantErr bool
	}{
		{nil, []int{1000, 5000}, false},
		{[]string{"-down-after", "1000"}, []int{1000}, false},
		{[]string{"-down-after", " 500, 2000 "}, []int{500, 2000}, false},
		{[]string{"-down-after", "x"}, nil, true},
		{[]string{"-down-after", "0"}, nil, true},
		{[]string{"-down-after", ""}, nil, true},
		{[]string{"-runs", "0"}, nil, true},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var c Config
		c.Register(fs, 3)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("%v: parse: %v", tt.args, err)
		}
		err := c.Finish()
		if (err != nil) != tt.wantErr {
			t.Errorf("%v: err = %v, wantErr %v", tt.args, err, tt.wantErr)
			continue
		}
		if err != nil && !errors.Is(err, ErrBadFlag) {
			t.Errorf("%v: err = %v, want ErrBadFlag", tt.args, err)
		}
		if !tt.wantErr && !reflect.DeepEqual(c.DownAfter, tt.want) {
			t.Errorf("%v: DownAfter = %v, want %v", tt.args, c.DownAfter, tt.want)
		}
	}
}

func TestScaleFlags(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var sc ScaleConfig
	ScaleFlags(fs, &sc)
	if err := fs.Parse([]string{"-scale-usage", "10,20", "-names-per-server", "5"}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sc.Usage, []int{10, 20}) || !reflect.DeepEqual(sc.Healthy, []int{2000, 10000}) || sc.NamesPerServer != 5 {
		t.Errorf("scale config = %+v", sc)
	}
	if err := fs.Parse([]string{"-scale-healthy", "-3"}); err == nil {
		t.Errorf("negative master count accepted")
	}
}

func TestAlternate(t *testing.T) {
	real := harness.Impl{Name: harness.RealName, Bin: "/r"}
	ours := harness.Impl{Name: harness.OursName, Bin: "/o"}
	gone := harness.Impl{Name: harness.OursName, Unavailable: "no binary"}
	tests := []struct {
		name string
		ours harness.Impl
		want []string
	}{
		{"both alternate", ours, []string{"0r", "0o", "1o", "1r", "2r", "2o"}},
		{"ours unavailable", gone, []string{"0r", "1r", "2r"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCollector(real, tt.ours, io.Discard)
			var got []string
			c.Alternate(3, func(run int, im harness.Impl) {
				got = append(got, string(rune('0'+run))+im.Bin[1:])
			})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("order = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCollectorSection(t *testing.T) {
	real := harness.Impl{Name: harness.RealName, Bin: "/r"}
	gone := harness.Impl{Name: harness.OursName, Unavailable: "go build failed\nmore"}
	c := NewCollector(real, gone, io.Discard)
	c.Define(FigureDef{Key: "k", Label: "kill → switch", Unit: "ms", LowerBetter: true})
	c.Define(FigureDef{Key: "k", Label: "dup"})
	c.Add(real, "k", 2000)
	c.Add(real, "k", math.NaN())
	c.Add(real, "k", 3000)
	c.Fail(real, "run 2", errors.New("timeout"))
	s := c.Section("failover", "Failover", 3, nil)
	if len(s.Figures) != 1 {
		t.Fatalf("figures = %+v", s.Figures)
	}
	f := s.Figures[0]
	if f.Real == nil || f.Real.N != 2 || f.Real.Median != 2500 {
		t.Errorf("real = %+v", f.Real)
	}
	if f.Ours != nil || f.OursNote != "not available (go build failed)" || f.Ratio != nil {
		t.Errorf("ours = %+v note %q ratio %v", f.Ours, f.OursNote, f.Ratio)
	}
	if len(s.Notes) != 2 || !strings.Contains(s.Notes[0], "Load average") || !strings.Contains(s.Notes[1], "1 run(s) failed") {
		t.Errorf("notes = %q", s.Notes)
	}
}

func TestAlternateGivesUp(t *testing.T) {
	real := harness.Impl{Name: harness.RealName, Bin: "/r"}
	ours := harness.Impl{Name: harness.OursName, Bin: "/o"}
	c := NewCollector(real, ours, io.Discard)
	calls := map[string]int{}
	c.Alternate(5, func(run int, im harness.Impl) {
		calls[im.Name]++
		if im.Name == harness.OursName {
			c.Fail(im, "run", errors.New("no failover"))
		}
	})
	if calls[harness.RealName] != 5 || calls[harness.OursName] != MaxConsecutiveFailures {
		t.Errorf("calls = %v, want real 5, ours %d", calls, MaxConsecutiveFailures)
	}
	// A success resets the count: fail, succeed, fail, succeed... never gives up.
	c2 := NewCollector(real, ours, io.Discard)
	n := 0
	c2.Alternate(6, func(run int, im harness.Impl) {
		if im.Name != harness.OursName {
			return
		}
		n++
		if run%2 == 0 {
			c2.Fail(im, "run", errors.New("flaky"))
		}
	})
	if n != 6 {
		t.Errorf("flaky implementation ran %d times, want 6", n)
	}
	s := c.Section("x", "X", 5, nil)
	found := false
	for _, note := range s.Notes {
		found = found || strings.Contains(note, "gave up 1 time(s)")
	}
	if !found {
		t.Errorf("notes %q do not say the runs were given up", s.Notes)
	}
}

func TestClientAbsent(t *testing.T) {
	var out strings.Builder
	_, ok := Client(t.Context(), t.TempDir(), "TestFailoverCompare", 1, nil, &out)
	if ok || !strings.Contains(out.String(), "not present") {
		t.Errorf("Client with no %s = ok %v, output %q", ClientBenchDir, ok, out.String())
	}
}

func TestFitsDescriptors(t *testing.T) {
	if err := fitsDescriptors(10, 3); err != nil {
		t.Fatalf("10 masters: %v", err)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Max == ^uint64(0) {
		t.Skip("no finite open-file limit here")
	}
	n := int(lim.Max/4) + 1
	if err := fitsDescriptors(n, 3); !errors.Is(err, ErrTooManySockets) {
		t.Fatalf("%d masters with a hard limit of %d: %v, want ErrTooManySockets", n, lim.Max, err)
	}
}

func TestAddMass(t *testing.T) {
	ours := harness.Impl{Name: "gosentinel", Bin: "/bin/true"}
	c := NewCollector(harness.Impl{Name: "redis-sentinel"}, ours, io.Discard)
	addMass(c, ours, faultlab.RunResult{Extra: map[string]float64{
		"all_switched_s": 3.5, "rto_switch_p50_s": 2.1, "rto_switch_p95_s": 3.2, "groups_switched": 200,
		"not_elected": 5, "failover_attempts": 205, "epochs_burned": 206, "peak_sentinel_cpu_pct": -1,
	}})
	got := c.vals["gosentinel"]
	if got["mass-all"][0] != 3.5 || got["mass-p95"][0] != 3.2 || got["mass-switched"][0] != 200 || got["mass-epochs"][0] != 206 {
		t.Errorf("figures %v", got)
	}
	if s := got["mass-split"][0]; math.Abs(s-100*5.0/205) > 1e-9 {
		t.Errorf("split votes %.3f %%, want %.3f", s, 100*5.0/205)
	}
	if !math.IsNaN(got["mass-cpu"][0]) {
		t.Errorf("a figure the lab reports as -1 (never) is %v, want NaN", got["mass-cpu"][0])
	}
	// A run without attempts has no split-vote share.
	addMass(c, ours, faultlab.RunResult{Extra: map[string]float64{}})
	if !math.IsNaN(got["mass-split"][1]) {
		t.Errorf("split share without attempts: %v, want NaN", got["mass-split"][1])
	}
}
