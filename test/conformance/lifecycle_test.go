package conformance

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestExitPaths compares how each way of stopping ends the process: exit
// status, the reply (if any) and stderr.
func TestExitPaths(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cmds [][]string // sent in order; the last one ends the process
		term bool       // SIGTERM instead of a last command
	}{
		{name: "SIGTERM", term: true},
		{name: "SHUTDOWN", cmds: [][]string{{"SHUTDOWN"}}},
		{name: "SHUTDOWN NOSAVE", cmds: [][]string{{"SHUTDOWN", "NOSAVE"}}},
		{name: "crash-after-election", cmds: [][]string{
			{"SENTINEL", "SIMULATE-FAILURE", "crash-after-election"}, {"SENTINEL", "FAILOVER", "mym"}}},
		{name: "crash-after-promotion", cmds: [][]string{
			{"SENTINEL", "SIMULATE-FAILURE", "crash-after-promotion"}, {"INFO", "sentinel"}, {"SENTINEL", "FAILOVER", "mym"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ps := startPair(t, spec{replicas: 1, quorum: 1})
			var got [2]string
			for i, s := range ps {
				s.waitDiscovered(t)
				s.waitFreshInfo(t, 9000)
				cl := dialSide(t, s)
				var replies []string
				for _, args := range tc.cmds {
					v, err := cl.try(args...)
					if err != nil {
						replies = append(replies, "<connection closed>")
						break
					}
					replies = append(replies, s.render(v))
				}
				if tc.term {
					s.proc.Term()
				}
				select {
				case <-s.proc.Done():
				case <-time.After(20 * time.Second):
					t.Fatalf("%s: still running after %s", s.name, tc.name)
				}
				got[i] = strings.Join(replies, " | ") + " | exit " + itoa(s.proc.ExitCode()) + " | stderr " + s.stderr(t)
			}
			if strings.HasPrefix(tc.name, "crash") && !strings.Contains(got[0], "exit 99") {
				t.Errorf("real sentinel did not crash with 99: %s", got[0])
			}
			if got[0] != got[1] {
				t.Errorf("%s:\nreal: %s\nours: %s", tc.name, got[0], got[1])
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
