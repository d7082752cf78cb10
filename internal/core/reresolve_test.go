package core

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestReconnectResolvesHostnameAgain: with resolve-hostnames, a master
// monitored by name is resolved again before every new connection
// (sentinelReconnectInstance), so an instance that comes back on a new IP
// under the same name is found there; a failed lookup keeps the old IP.
// Found by the simulator's name-moves fault (docs/sim.md): before, the
// core dialed the IP resolved at creation for good.
func TestReconnectResolvesHostnameAgain(t *testing.T) {
	dns := map[string]string{"redis-a.example": "10.9.0.1"}
	cfg := Config{Port: 26379, ResolveIP: func(h string) (string, bool) { ip, ok := dns[h]; return ip, ok }}
	cfg.ResolveHostnames = true
	cfg.Masters = []MasterConfig{{Name: "m", Addr: Addr{Host: "redis-a.example", Port: 6379}, Quorum: 1}}
	s, err := New(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	now := Millis(0)
	// dialed returns the IP of the command connection dialed in a step,
	// and fails that connection at once.
	dialed := func(ev Event) string {
		ip := ""
		for _, e := range s.Step(now, ev) {
			if c, ok := e.(Connect); ok && c.Type == ConnCmd {
				ip = c.Addr.IP
				s.Step(now, LinkClosed{Link: c.Link, Conn: c.Conn, Err: errors.New("refused")})
			}
		}
		return ip
	}
	next := func() string {
		for k := 0; k < 50; k++ {
			now += 100
			if ip := dialed(Tick{}); ip != "" {
				return ip
			}
		}
		t.Fatal("no reconnect within 5 s")
		return ""
	}
	if ip := dialed(Tick{}); ip != "10.9.0.1" {
		t.Fatalf("first dial to %q, want 10.9.0.1", ip)
	}
	dns["redis-a.example"] = "10.9.0.7" // the instance moved
	if ip := next(); ip != "10.9.0.7" {
		t.Fatalf("reconnect dialed %q after the name moved, want 10.9.0.7", ip)
	}
	delete(dns, "redis-a.example") // the name stops resolving
	if ip := next(); ip != "10.9.0.7" {
		t.Fatalf("reconnect dialed %q while the name does not resolve, want the last IP 10.9.0.7", ip)
	}
}
