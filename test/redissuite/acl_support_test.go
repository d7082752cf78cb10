package redissuite

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// useAuth replaces the instance's client by one that logs in as user, as
// the Tcl link does after `AUTH user pass`.
func (in *instance) useAuth(user, pass string) {
	in.closeClient()
	in.mu.Lock()
	defer in.mu.Unlock()
	in.client = redis.NewClient(&redis.Options{
		Addr: in.addr(), Protocol: 2, DisableIdentity: true,
		Username: user, Password: pass,
		MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: 3 * time.Second,
		WriteTimeout: time.Second, PoolSize: 2,
	})
}

// TestACLSupport is 09-acl-support.tcl: sentinels that require a user
// stop talking to each other until SENTINEL CONFIG SET sentinel-user and
// sentinel-pass give them the credentials.
func TestACLSupport(t *testing.T) {
	t.Parallel()
	aclSupportUnit(t, newSuite(t))
}

// aclSupportUnit runs 09-acl-support on an initialised suite.
func aclSupportUnit(t *testing.T, s *suite) {
	const user, pass = "testuser", "secret"

	s.step("(post-init) Set up ACL configuration", func() {
		s.foreachSentinel(func(id int) {
			if v := s.S(id, "ACL", "SETUSER", user, ">"+pass, "+@all", "on"); v != "OK" {
				t.Fatalf("ACL SETUSER %s: %v", user, v)
			}
			if v := s.S(id, "ACL", "SETUSER", "default", "off"); v != "OK" {
				t.Fatalf("ACL SETUSER default off: %v", v)
			}
			// Our own connection is killed too (SKIPME no).
			_, _ = s.try(id, "CLIENT", "KILL", "USER", "default", "SKIPME", "no")
			s.sentinels[id].useAuth(user, pass)
		})
		if who := fmt.Sprint(s.S(1, "ACL", "WHOAMI")); who != user {
			t.Fatalf("ACL WHOAMI = %q, want %q", who, user)
		}
	})

	s.step("SENTINEL CONFIG SET handles on-the-fly credentials reconfiguration", func() {
		s.waitFor(20*time.Second, "sentinel 1 loses its quorum (peers answer NOAUTH)", func() bool {
			_, err := s.try(1, "SENTINEL", "CKQUORUM", masterName)
			return err != nil
		})
		if _, err := s.try(1, "SENTINEL", "CKQUORUM", masterName); err == nil || !strings.Contains(err.Error(), "NOQUORUM") {
			t.Fatalf("CKQUORUM: %v, want NOQUORUM", err)
		}
		s.foreachSentinel(func(id int) {
			for _, kv := range [][2]string{{"sentinel-user", user}, {"sentinel-pass", pass}} {
				if v := s.S(id, "SENTINEL", "CONFIG", "SET", kv[0], kv[1]); v != "OK" {
					t.Fatalf("SENTINEL CONFIG SET %s: %v", kv[0], v)
				}
			}
		})
		s.waitFor(20*time.Second, "sentinel 1 has its quorum back", func() bool {
			_, err := s.try(1, "SENTINEL", "CKQUORUM", masterName)
			return err == nil
		})
		if v := fmt.Sprint(s.S(1, "SENTINEL", "CKQUORUM", masterName)); !strings.Contains(v, "OK") {
			t.Fatalf("CKQUORUM = %q, want OK", v)
		}
	})

	s.step("(post-cleanup) Tear down ACL configuration", func() {
		s.foreachSentinel(func(id int) {
			if v := s.S(id, "ACL", "SETUSER", "default", "on"); v != "OK" {
				t.Fatalf("ACL SETUSER default on: %v", v)
			}
			if v := fmt.Sprint(s.S(id, "ACL", "DELUSER", user)); v != "1" {
				t.Fatalf("ACL DELUSER: %v", v)
			}
			s.sentinels[id].closeClient()
			s.S(id, "SENTINEL", "CONFIG", "SET", "sentinel-user", "")
			s.S(id, "SENTINEL", "CONFIG", "SET", "sentinel-pass", "")
		})
	})
}
