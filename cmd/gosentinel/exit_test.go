package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestSimulateFailureExits: SENTINEL SIMULATE-FAILURE crash-after-election
// makes the elected leader exit (the core's Exit effect reaches os.Exit).
func TestSimulateFailureExits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	c := testutil.StartSentinelCluster(t, "mym", 2, 3, 2, 1000, 3000)
	for _, s := range c.Sentinels {
		if err := redisClient(t, s.Addr()).Do(context.Background(), "SENTINEL", "SIMULATE-FAILURE", "crash-after-election").Err(); err != nil {
			t.Fatal(err)
		}
	}
	c.Top.Master.Kill()
	var leader *testutil.Process
	testutil.WaitFor(t, 30*time.Second, "the elected sentinel exits", func() bool {
		for _, s := range c.Sentinels {
			if s.Exited() {
				leader = s
				return true
			}
		}
		return false
	})
	if l := leader.Log(); !strings.Contains(l, "+elected-leader") || !strings.Contains(l, "Exiting with code 99") {
		t.Errorf("exited sentinel's log lacks +elected-leader / exit code 99:\n%s", l)
	}
}
