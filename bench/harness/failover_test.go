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
	// down-after is 1000 ms: +sdown cannot come earlier.
	if s.Sdown < 1000 {
		t.Errorf("+sdown after %v ms, before down-after (1000 ms)", s.Sdown)
	}
	if math.IsNaN(s.Agree) {
		t.Errorf("sentinels never agreed on the new master")
	}
}
