package redissuite

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// rebootRedis is reboot_instance redis id of 12-master-reboot.tcl: the
// server is started again on its (rewritten) config without waiting for a
// PONG, since it answers -LOADING for a while. The process is killed by
// PID in t.Cleanup.
func (s *suite) rebootRedis(id int) {
	t := s.t
	t.Helper()
	in := s.redis[id]
	in.closeClient()
	cmd := exec.Command(testutil.Binary(t, "redis-server"), in.args...)
	cmd.Dir = in.cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("reboot redis %d: %v", id, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
	})
	s.waitFor(10*time.Second, fmt.Sprintf("redis %d accepts connections", id), func() bool {
		_, err := do(in, "PING")
		return err == nil || isLoading(err)
	})
}

func isLoading(err error) bool {
	return err != nil && len(err.Error()) >= 7 && err.Error()[:7] == "LOADING"
}

// TestMasterReboot is 12-master-reboot.tcl: a master that restarts and
// stays in LOADING longer than master-reboot-down-after-period is failed
// over, and later becomes a replica of the new master.
func TestMasterReboot(t *testing.T) {
	t.Parallel()
	masterRebootUnit(t, newSuite(t))
}

// masterRebootUnit runs 12-master-reboot on an initialised suite. The
// rebooted server is not a testutil.Process: restartKilled must not run
// after it (in the shared run it is the last unit).
func masterRebootUnit(t *testing.T, s *suite) {
	m := s.masterID
	var newID int

	s.step("Master reboot in very short time", func() {
		oldPort := s.rport(m)
		if p := s.masterPort(0); p != oldPort {
			t.Fatalf("sentinel 0 reports master port %s, want %s", p, oldPort)
		}
		s.R(m, "DEBUG", "POPULATE", 10000)
		s.bgsave(m)
		s.waitFor(30*time.Second, "BGSAVE done", func() bool {
			return s.RI(m, "rdb_bgsave_in_progress") == "0" && s.RI(m, "rdb_last_bgsave_status") == "ok"
		})
		if _, err := os.Stat(filepath.Join(s.redis[m].cwd, "redis_"+fmt.Sprint(m), "dump.rdb")); err != nil {
			t.Fatalf("no dump.rdb after BGSAVE: %v", err)
		}
		s.R(m, "CONFIG", "SET", "key-load-delay", 1500)
		s.R(m, "CONFIG", "SET", "loading-process-events-interval-bytes", 1024)
		s.R(m, "CONFIG", "REWRITE")
		s.foreachSentinel(func(id int) {
			s.S(id, "SENTINEL", "SET", masterName, "master-reboot-down-after-period", 5000)
			s.S(id, "SENTINEL", "DEBUG", "ping-period", 500)
			s.S(id, "SENTINEL", "DEBUG", "ask-period", 500)
		})
		// The failover must come from the reboot rule, not from a plain
		// SDOWN (the loading master answers -LOADING, a valid reply):
		// sentinel 0 announces +reboot.
		sub := s.sentinels[0].cli().Subscribe(context.Background(), "+reboot")
		defer sub.Close()
		if _, err := sub.Receive(context.Background()); err != nil {
			t.Fatalf("subscribe +reboot: %v", err)
		}
		s.killRedis(m)
		s.rebootRedis(m)
		select {
		case msg := <-sub.Channel():
			t.Logf("+reboot %s", msg.Payload)
		case <-time.After(20 * time.Second):
			t.Fatal("no +reboot event from sentinel 0")
		}
		newID = s.waitFailover(oldPort, 0, 100*time.Second)
		if newID == m {
			t.Fatalf("the rebooted master is still the master")
		}
	})

	s.step("New master role matches", func() {
		if r := s.RI(newID, "role"); r != "master" {
			t.Fatalf("new master redis %d has role %q", newID, r)
		}
	})

	s.step("All the other slaves now point to the new master", func() {
		for id := range s.redis {
			if id == newID || id == m {
				continue
			}
			s.waitFor(50*time.Second, fmt.Sprintf("redis %d replicates the new master", id), func() bool {
				return s.RI(id, "master_port") == s.rport(newID)
			})
		}
	})

	s.step("The old master eventually gets reconfigured as a slave", func() {
		s.waitFor(50*time.Second, "the old master replicates the new master", func() bool {
			return s.RI(m, "master_port") == s.rport(newID)
		})
	})
}
