package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

func TestWatchAndDrillCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	t.Parallel()
	top := testutil.StartAuthTopology(t, testPassword, 2)
	d := testutil.StartDeployment(t, top, testPassword, 3, 2, 5000, 60000)
	// The drill triggers SENTINEL FAILOVER; a concurrent watch must see the
	// switch and stop by itself (--until-switch).
	type result struct {
		out  string
		code int
	}
	watched := make(chan result, 1)
	go func() {
		out, _, code := run(t, append([]string{"watch", "--until-switch", "--duration", "40s", "--no-color"}, sentinelFlags(d)...)...)
		watched <- result{out, code}
	}()
	out, errs, code := run(t, append([]string{"drill", "mym", "--json", "--quiet", "--settle", "200ms", "--wait", "30s"}, sentinelFlags(d)...)...)
	if code != 0 {
		t.Fatalf("drill exit %d:\n%s\n%s", code, out, errs)
	}
	var rep struct {
		Before    string `json:"before"`
		After     string `json:"after"`
		Completed bool   `json:"completed"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || !rep.Completed || rep.Before != top.Master.Addr() || rep.After == rep.Before {
		t.Errorf("drill report = %+v (%v)", rep, err)
	}
	select {
	case w := <-watched:
		if w.code != 0 || !strings.Contains(w.out, "timeline mym: +switch-master") || strings.Contains(w.out, "\x1b[") {
			t.Errorf("watch exit %d:\n%s", w.code, w.out)
		}
	case <-time.After(45 * time.Second):
		t.Fatal("watch --until-switch did not return")
	}
}

func TestDrillAndDemoFlagErrors(t *testing.T) {
	t.Parallel()
	tests := [][]string{
		{"drill", "mym", "--pid", "1"},
		{"drill", "mym", "--client", "nope"},
		{"demo", "--client", "nope"},
		{"drill"},
	}
	for _, args := range tests {
		if _, _, code := run(t, args...); code == 0 {
			t.Errorf("%v: exit 0, want an error", args)
		}
	}
}
