package redissuite

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// sentinelLinks counts the connections named sentinel-*-cmd and
// sentinel-*-pubsub in CLIENT LIST of redis id.
func (s *suite) sentinelLinks(id int) (cmd, pubsub int) {
	v, err := do(s.redis[id], "CLIENT", "LIST")
	if err != nil {
		return -1, -1
	}
	for _, line := range strings.Split(fmt.Sprint(v), "\n") {
		switch {
		case strings.Contains(line, "name=sentinel-") && strings.Contains(line, "-cmd "):
			cmd++
		case strings.Contains(line, "name=sentinel-") && strings.Contains(line, "-pubsub "):
			pubsub++
		}
	}
	return cmd, pubsub
}

// connsReceived is INFO stats total_connections_received of redis id.
func (s *suite) connsReceived(id int) int {
	n, _ := strconv.Atoi(s.RI(id, "total_connections_received"))
	return n
}

// debugSleep sends DEBUG SLEEP secs to redis id on its own connection and
// returns a channel closed when the server answers (it blocks meanwhile).
func (s *suite) debugSleep(id int, secs float64) <-chan error {
	done := make(chan error, 1)
	c, err := net.DialTimeout("tcp", s.redis[id].addr(), time.Second)
	if err != nil {
		done <- err
		return done
	}
	go func() {
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(time.Duration(secs*float64(time.Second)) + 10*time.Second))
		if _, err := fmt.Fprintf(c, "DEBUG SLEEP %g\r\n", secs); err != nil {
			done <- err
			return
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err == nil && !strings.HasPrefix(line, "+OK") {
			err = fmt.Errorf("DEBUG SLEEP: %q", line)
		}
		done <- err
	}()
	return done
}

// linkSteps are the link-level down conditions: DEBUG SLEEP (a busy, not
// stopped, server), link recycling of a silent instance, and the absence of
// connection spam. They run on the 07-down-conditions processes.
func (s *suite) linkSteps(alive int) {
	t := s.t
	m := s.masterID
	live := len(s.sentinels) - s.quorum

	s.step("SDOWN is triggered by an instance blocked in DEBUG SLEEP", func() {
		s.ensureMasterUp(alive)
		done := s.debugSleep(m, 4)
		s.ensureMasterDown(alive)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		s.ensureMasterUp(alive)
	})

	s.step("Sentinel recycles the links of a silent instance and reconnects", func() {
		s.ensureMasterUp(alive)
		s.foreachSentinel(func(id int) {
			if !s.sentinels[id].proc.Exited() {
				s.S(id, "SENTINEL", "DEBUG", "min-link-reconnect-period", 500)
			}
		})
		before := s.connsReceived(m)
		s.redis[m].proc.Stop()
		s.ensureMasterDown(alive)
		// Stay silent long enough for links older than
		// min-link-reconnect-period with a ping pending for more than
		// down-after/2 to be closed and reopened.
		time.Sleep(3 * time.Second) // the instance must stay silent for a while: no event to await
		s.redis[m].proc.Cont()
		s.ensureMasterUp(alive)
		n := s.connsReceived(m) - before
		t.Logf("connections opened by %d sentinels during a 3 s+ stop: %d", live, n)
		if n < live {
			t.Fatalf("%d new connections after the stop, want at least one per live sentinel (%d): links not recycled", n, live)
		}
		// No spam: real redis-sentinel opens ~15 connections per sentinel
		// in this step (cc recycled each ~down-after/2, pc each
		// 3 x publish-period); twice that is the bound.
		if max := live * 30; n > max {
			t.Fatalf("%d new connections in a few seconds from %d sentinels (> %d): reconnect spam", n, live, max)
		}
	})

	s.step("Sentinels do not leak links: one cmd and one pubsub link each", func() {
		s.waitFor(20*time.Second, "one cmd and one pubsub link per live sentinel", func() bool {
			c, p := s.sentinelLinks(m)
			return c == live && p == live
		})
		s.holds(2*time.Second, "link count stays one cmd and one pubsub per sentinel", func() bool {
			c, p := s.sentinelLinks(m)
			return c == live && p == live
		})
	})
}
