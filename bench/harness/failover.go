package harness

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Fault is how the master is taken down.
type Fault string

// The faults a failover run can inject.
const (
	Kill Fault = "SIGKILL" // the process dies; connections are refused
	Stop Fault = "SIGSTOP" // the process hangs; connections time out
)

// FailoverOpts configures one failover measurement.
type FailoverOpts struct {
	Cluster ClusterOpts
	Fault   Fault
	// Timeout bounds the wait for +switch-master on every sentinel after the
	// fault; default 30 s + 2×down-after.
	Timeout time.Duration
}

// FailoverSample holds the milliseconds from the fault to each milestone,
// NaN when the milestone was not observed.
type FailoverSample struct {
	Sdown       float64 `json:"sdown_ms"`        // first +sdown master <name> on any sentinel
	Odown       float64 `json:"odown_ms"`        // first +odown
	Promoted    float64 `json:"promoted_ms"`     // first +promoted-slave
	SwitchFirst float64 `json:"switch_first_ms"` // first +switch-master
	SwitchAll   float64 `json:"switch_all_ms"`   // +switch-master seen on every sentinel
	Agree       float64 `json:"agree_ms"`        // every sentinel answers GET-MASTER-ADDR-BY-NAME with the same new address
}

// ErrNoFailover is returned when the failover did not complete in time.
var ErrNoFailover = errors.New("failover not observed")

// agreePollInterval is the resolution of the "all sentinels agree" figure:
// there is no event for it, so it is polled.
const agreePollInterval = 5 * time.Millisecond

// RunFailover starts a cluster of impl, injects the fault into the master and
// measures the failover. The processes are stopped when env's Run returns.
func RunFailover(env *Env, impl Impl, o FailoverOpts) (FailoverSample, error) {
	o.Cluster.defaults()
	if o.Fault == "" {
		o.Fault = Kill
	}
	if o.Timeout == 0 {
		o.Timeout = 30*time.Second + 2*time.Duration(o.Cluster.DownAfterMs)*time.Millisecond
	}
	cl := StartCluster(env, impl, o.Cluster)
	name := o.Cluster.Name
	oldAddr := cl.Top.Master.Addr()
	addrs := make([]string, len(cl.Sentinels))
	for i, s := range cl.Sentinels {
		addrs[i] = s.Addr()
	}
	w, err := Watch(addrs)
	if err != nil {
		return nanSample(), fmt.Errorf("failover %s: %w", impl.Name, err)
	}
	defer w.Close()
	poll, err := startAgreePoller(addrs, name, oldAddr)
	if err != nil {
		return nanSample(), fmt.Errorf("failover %s: %w", impl.Name, err)
	}
	defer poll.stop()

	t0 := time.Now()
	poll.begin(t0)
	switch o.Fault {
	case Kill:
		cl.Top.Master.Kill()
	case Stop:
		cl.Top.Master.Stop()
	default:
		return nanSample(), fmt.Errorf("failover: unknown fault %q", o.Fault)
	}
	n := len(addrs)
	switchM := TypeFor("+switch-master", name+" ")
	allSwitched := w.WaitUntil(t0.Add(o.Timeout), func(ev []Event) bool {
		_, found := FirstPerSentinel(ev, n, switchM)
		return found == n
	})
	agreeAt := poll.wait(time.Now().Add(5 * time.Second))
	ev := w.Events()
	s := nanSample()
	ms := func(m Match) float64 {
		if e, ok := First(ev, m); ok {
			return sinceMs(t0, e.At)
		}
		return math.NaN()
	}
	s.Sdown = ms(TypeFor("+sdown", "master "+name+" "))
	s.Odown = ms(TypeFor("+odown", "master "+name+" "))
	s.Promoted = ms(func(e Event) bool { return e.Type == "+promoted-slave" && strings.Contains(e.Payload, "@ "+name+" ") })
	s.SwitchFirst = ms(switchM)
	if per, found := FirstPerSentinel(ev, n, switchM); found == n {
		last := per[0].At
		for _, e := range per[1:] {
			if e.At.After(last) {
				last = e.At
			}
		}
		s.SwitchAll = sinceMs(t0, last)
	}
	if !agreeAt.IsZero() {
		s.Agree = sinceMs(t0, agreeAt)
	}
	if !allSwitched {
		return s, fmt.Errorf("failover %s %s: %w: +switch-master on fewer than %d sentinels within %v", impl.Name, o.Fault, ErrNoFailover, n, o.Timeout)
	}
	if agreeAt.IsZero() {
		return s, fmt.Errorf("failover %s %s: %w: sentinels never agreed on a new master address", impl.Name, o.Fault, ErrNoFailover)
	}
	return s, nil
}

func nanSample() FailoverSample {
	n := math.NaN()
	return FailoverSample{n, n, n, n, n, n}
}

func sinceMs(t0, t time.Time) float64 { return float64(t.Sub(t0).Microseconds()) / 1000 }
