package redissuite

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// reinit is sourcing includes/init-tests.tcl again inside a unit: restart
// the killed instances, remove mymaster from every sentinel, rebuild the
// master/replicas cluster and monitor it again.
func (s *suite) reinit() {
	s.t.Helper()
	s.restartKilled()
	s.foreachSentinel(func(id int) { _, _ = s.try(id, "SENTINEL", "REMOVE", masterName) })
	s.initTests()
}

// manualDebug is the SENTINEL DEBUG block of 05-manual.tcl.
func (s *suite) manualDebug() {
	s.foreachSentinel(func(id int) {
		s.S(id, "SENTINEL", "DEBUG", "info-period", 2000)
		s.S(id, "SENTINEL", "DEBUG", "default-down-after", 6000)
		s.S(id, "SENTINEL", "DEBUG", "publish-period", 1000)
	})
}

// errText is the error text of a reply ("" when there is none).
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestManual ports 05-manual.tcl: SENTINEL FAILOVER, its errors, and
// SENTINEL SIMULATE-FAILURE.
func TestManual(t *testing.T) {
	t.Parallel()
	unitManual(newSuite(t))
}

// unitManual is the body of TestManual on an initialised suite.
func unitManual(s *suite) {
	t := s.t
	s.manualDebug()
	var newPort string

	s.step("Manual failover works", func() {
		oldPort := s.rport(s.masterID)
		if p := s.masterPort(0); p != oldPort {
			t.Fatalf("master port %s, want %s", p, oldPort)
		}
		// Right after the init the replicas' INFO may be too old for
		// selection (NOGOODSLAVE): retry like the Tcl test.
		var err error
		s.waitFor(15*time.Second, "SENTINEL FAILOVER accepted", func() bool {
			_, err = s.try(0, "SENTINEL", "FAILOVER", masterName)
			return err == nil
		})
		_, err = s.try(0, "SENTINEL", "FAILOVER", masterName)
		if got, want := errText(err), "INPROG Failover already in progress"; got != want {
			t.Errorf("second FAILOVER: %q, want %q", got, want)
		}
		s.masterID = s.waitFailover(oldPort, 0, 50*time.Second)
		newPort = s.masterPort(0)
	})

	s.step("New master role matches", func() {
		if r := s.RI(s.masterID, "role"); r != "master" {
			t.Errorf("new master role %q", r)
		}
	})

	s.step("All the other slaves now point to the new master", func() {
		for id := range s.redis {
			if id == s.masterID || id == 0 {
				continue
			}
			s.waitFor(50*time.Second, fmt.Sprintf("redis %d replicates with the new master", id), func() bool {
				return s.RI(id, "master_port") == newPort
			})
		}
	})

	s.step("The old master eventually gets reconfigured as a slave", func() {
		s.waitFor(50*time.Second, "old master replicates with the new master", func() bool {
			return s.RI(0, "master_port") == newPort
		})
	})

	s.step("SENTINEL FAILOVER errors", func() {
		s.waitFor(50*time.Second, "failover over", func() bool {
			_, ok := s.masterDict(0)["failover-state"]
			return !ok
		})
		// A third argument: Redis 7.0-7.4 and Valkey 8 have arity 3;
		// Valkey 9 (and gosentinel, which implements its COORDINATED
		// option, docs/compatibility.md) have arity -3 and name the
		// unknown option.
		extra := "ERR wrong number of arguments for 'sentinel|failover' command"
		if os.Getenv(suiteBinEnv) == "" {
			extra = "ERR Unknown failover option specified"
		}
		cases := []struct {
			args []any
			want string
		}{
			{[]any{"FAILOVER", "mymaster_not_exist"}, "ERR No such master with that name"},
			{[]any{"FAILOVER"}, "ERR wrong number of arguments for 'sentinel|failover' command"},
			{[]any{"FAILOVER", masterName, "extra"}, extra},
			{[]any{"FAILOVER", masterName, "extra", "more"}, "ERR wrong number of arguments for 'sentinel|failover' command"},
		}
		for _, c := range cases {
			_, err := s.try(0, append([]any{"SENTINEL"}, c.args...)...)
			if got := errText(err); got != c.want {
				t.Errorf("SENTINEL %v: %q, want %q", c.args, got, c.want)
			}
		}
	})

	s.step("SENTINEL FAILOVER fails when all replicas have priority 0", func() {
		for id := range s.redis {
			if id != s.masterID {
				s.R(id, "CONFIG", "SET", "replica-priority", 0)
			}
		}
		s.waitFor(30*time.Second, "sentinel 0 sees every replica with priority 0", func() bool {
			v, err := s.try(0, "SENTINEL", "REPLICAS", masterName)
			arr, _ := v.([]any)
			if err != nil || len(arr) != instancesCount-1 {
				return false
			}
			for _, r := range arr {
				if dict(r)["slave-priority"] != "0" {
					return false
				}
			}
			return true
		})
		_, err := s.try(0, "SENTINEL", "FAILOVER", masterName)
		if got, want := errText(err), "NOGOODSLAVE No suitable replica to promote"; got != want {
			t.Errorf("FAILOVER: %q, want %q", got, want)
		}
		for id := range s.redis {
			if id != s.masterID {
				s.R(id, "CONFIG", "SET", "replica-priority", 100)
			}
		}
	})

	for _, flag := range []string{"crash-after-election", "crash-after-promotion"} {
		s.step("(init) again before SIMULATE-FAILURE "+flag, func() {
			s.reinit()
			s.manualDebug()
		})
		s.step("SENTINEL SIMULATE-FAILURE "+flag+" works", func() {
			if v := fmt.Sprint(s.S(0, "SENTINEL", "SIMULATE-FAILURE", flag)); v != "OK" {
				t.Fatalf("SIMULATE-FAILURE %s: %v", flag, v)
			}
			s.waitFor(15*time.Second, "SENTINEL FAILOVER accepted (or the sentinel exited)", func() bool {
				_, err := s.try(0, "SENTINEL", "FAILOVER", masterName)
				return err == nil || s.sentinels[0].proc.Exited()
			})
			select {
			case <-s.sentinels[0].proc.Done():
			case <-time.After(50 * time.Second):
				t.Fatalf("sentinel set %s but did not exit", flag)
			}
			if code := s.sentinels[0].proc.ExitCode(); code != 99 {
				t.Errorf("exit status %d after %s, want 99 (sentinelSimFailureCrash)", code, flag)
			}
			if _, err := s.try(0, "PING"); err == nil || !strings.Contains(err.Error(), "connect") {
				t.Errorf("PING after the crash: %v, want a refused connection", err)
			}
			if flag == "crash-after-promotion" {
				promoted := 0
				for id := 1; id < len(s.redis); id++ {
					if s.RI(id, "role") == "master" {
						promoted++
					}
				}
				if promoted != 1 {
					t.Errorf("%d replicas promoted before the crash, want 1", promoted)
				}
			}
			s.restartSentinel(0)
		})
	}
}
