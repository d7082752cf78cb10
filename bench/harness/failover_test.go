package harness

import (
	"math"
	"os/exec"
	"testing"
)

// TestFailoverSmoke measures one SIGKILL failover with the real
// redis-sentinel: every milestone must be observed, in order.
func TestFailoverSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real redis-server and redis-sentinel processes")
	}
	if _, err := exec.LookPath("redis-sentinel"); err != nil {
		t.Skip("redis-sentinel not installed")
	}
	env := NewEnv(t.Logf)
	var s FailoverSample
	err := env.Run(func() error {
		var err error
		s, err = RunFailover(env, RealSentinel(""), FailoverOpts{Fault: Kill})
		return err
	})
	if err != nil {
		t.Fatalf("RunFailover: %v", err)
	}
	t.Logf("sample: %+v", s)
	steps := []struct {
		name string
		v    float64
	}{
		{"sdown", s.Sdown}, {"odown", s.Odown}, {"promoted", s.Promoted},
		{"switch first", s.SwitchFirst}, {"switch all", s.SwitchAll},
	}
	prev := 0.0
	for _, st := range steps {
		if math.IsNaN(st.v) || st.v < prev {
			t.Fatalf("%s = %v ms, want observed and >= %v ms (sample %+v)", st.name, st.v, prev, s)
		}
		prev = st.v
	}
	// +sdown may come before down-after has passed since the kill: with the
	// link down, Sentinel counts from the last valid PING reply, which
	// predates the kill. Only ordering and the agreement window are checked.
	if math.IsNaN(s.Agree) {
		t.Fatalf("sentinels never agreed on the new master")
	}
	// Every sentinel has switched its address by the time it publishes
	// +switch-master, and the leader switches at promotion: agreement lies
	// between the two (plus poll resolution and slack for a loaded machine).
	if s.Agree < s.Promoted || s.Agree > s.SwitchAll+250 {
		t.Errorf("all agree at %v ms, want within [%v, %v+250] ms", s.Agree, s.Promoted, s.SwitchAll)
	}
}
