package ops

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// TimelineSteps are the failover milestones a Timeline records, in the order
// a failover goes through them.
// "+failover-state-wait-promotion" marks the moment the leader has sent
// REPLICAOF NO ONE to the selected replica: from then on two nodes may
// accept writes until the old master is demoted or the clients move.
var TimelineSteps = []string{"+sdown", "+odown", "+try-failover", "+elected-leader", "+selected-slave",
	"+failover-state-wait-promotion", "+promoted-slave", "+failover-end", "+switch-master"}

// Step is the first time one milestone was seen, from any sentinel.
type Step struct {
	Type    string        `json:"type"`
	At      time.Time     `json:"at"`
	Since   time.Duration `json:"since_start_ns"` // since the failover's first event
	Source  string        `json:"source"`
	Payload string        `json:"payload"`
	Seen    int           `json:"seen"` // how many sentinels reported it
}

// Failover is the timeline of one failover of one master.
type Failover struct {
	Master   string    `json:"master"`
	Start    time.Time `json:"start"`
	Steps    []Step    `json:"steps"`
	From     string    `json:"from,omitempty"` // from +switch-master
	To       string    `json:"to,omitempty"`
	Complete bool      `json:"complete"` // +switch-master seen
	Aborted  string    `json:"aborted,omitempty"`
}

// started reports whether the failover went beyond failure detection.
func (f *Failover) started() bool {
	for _, s := range f.Steps {
		if s.Type != "+sdown" && s.Type != "+odown" {
			return true
		}
	}
	return false
}

// StepAt returns the first occurrence of event type typ.
func (f *Failover) StepAt(typ string) (Step, bool) {
	for _, s := range f.Steps {
		if s.Type == typ {
			return s, true
		}
	}
	return Step{}, false
}

// Timeline follows failovers in a merged event stream. A failover of master
// M starts with the first +sdown of M as a master (or +try-failover /
// +elected-leader when it was forced with SENTINEL FAILOVER) and completes
// with the first +switch-master for M; later duplicates from other sentinels
// only raise Seen. It is safe for concurrent use.
type Timeline struct {
	mu     sync.Mutex
	open   map[string]*Failover
	closed []*Failover
}

// NewTimeline returns an empty timeline.
func NewTimeline() *Timeline { return &Timeline{open: map[string]*Failover{}} }

func isStep(t string) bool {
	for _, s := range TimelineSteps {
		if s == t {
			return true
		}
	}
	return false
}

// Add records e and returns the step it added (ok false when e is not a new
// milestone: not a milestone type, a duplicate, or unrelated).
func (tl *Timeline) Add(e Event) (Step, *Failover, bool) {
	if e.Meta || e.MasterName == "" {
		return Step{}, nil, false
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	f := tl.open[e.MasterName]
	if strings.HasPrefix(e.Type, "-failover-abort") && f != nil {
		f.Aborted = e.Type
		return Step{}, nil, false
	}
	if e.Type == "-sdown" && e.InstanceType == "master" && f != nil && !f.started() {
		delete(tl.open, e.MasterName) // a blip: the master came back before any failover began
		return Step{}, nil, false
	}
	if !isStep(e.Type) {
		return Step{}, nil, false
	}
	if e.Type == "+sdown" && e.InstanceType != "master" {
		return Step{}, nil, false
	}
	if f == nil {
		if e.Type == "+failover-end" {
			// The leader ends its failover after the observers already
			// published +switch-master (they switch on its first hello):
			// it belongs to the failover just closed, if any.
			if last := tl.lastClosed(e.MasterName); last != nil && !last.has(e.Type) {
				s := Step{Type: e.Type, At: e.Time, Since: e.Time.Sub(last.Start), Source: e.Source, Payload: e.Payload, Seen: 1}
				last.Steps = append(last.Steps, s)
				return s, last, true
			}
			return Step{}, nil, false // tail of a failover we did not see start
		}
		if e.Type == "+switch-master" && tl.recentlyClosed(e) {
			last := tl.closed[len(tl.closed)-1]
			for i := range last.Steps {
				if last.Steps[i].Type == e.Type {
					last.Steps[i].Seen++
				}
			}
			return Step{}, nil, false
		}
		f = &Failover{Master: e.MasterName, Start: e.Time}
		tl.open[e.MasterName] = f
	}
	for i := range f.Steps {
		if f.Steps[i].Type == e.Type {
			f.Steps[i].Seen++
			return Step{}, nil, false
		}
	}
	s := Step{Type: e.Type, At: e.Time, Since: e.Time.Sub(f.Start), Source: e.Source, Payload: e.Payload, Seen: 1}
	f.Steps = append(f.Steps, s)
	if from, to, ok := e.SwitchAddrs(); ok {
		f.From, f.To, f.Complete = from, to, true
		delete(tl.open, e.MasterName)
		tl.closed = append(tl.closed, f)
	}
	return s, f, true
}

// lastClosed returns the most recently closed failover of master, or nil
// when the last one closed is of another master.
func (tl *Timeline) lastClosed(master string) *Failover {
	if len(tl.closed) == 0 || tl.closed[len(tl.closed)-1].Master != master {
		return nil
	}
	return tl.closed[len(tl.closed)-1]
}

// has reports whether f already has a step of type t.
func (f *Failover) has(t string) bool {
	for _, s := range f.Steps {
		if s.Type == t {
			return true
		}
	}
	return false
}

// recentlyClosed reports whether e repeats the +switch-master of the last
// closed failover of the same master (observers publish it too).
func (tl *Timeline) recentlyClosed(e Event) bool {
	if len(tl.closed) == 0 {
		return false
	}
	last := tl.closed[len(tl.closed)-1]
	_, to, _ := e.SwitchAddrs()
	return last.Master == e.MasterName && last.To == to
}

// Failovers returns copies of all failovers seen, completed first in
// completion order, then those still open sorted by master name.
func (tl *Timeline) Failovers() []Failover {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var out []Failover
	for _, f := range tl.closed {
		out = append(out, copyFailover(f))
	}
	names := make([]string, 0, len(tl.open))
	for n := range tl.open {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, copyFailover(tl.open[n]))
	}
	return out
}

func copyFailover(f *Failover) Failover {
	c := *f
	c.Steps = append([]Step(nil), f.Steps...)
	return c
}

// String renders the failover as one line per step.
func (f *Failover) String() string {
	var b strings.Builder
	state := "in progress"
	if f.Complete {
		state = fmt.Sprintf("complete: %s -> %s", f.From, f.To)
	}
	if f.Aborted != "" {
		state += " (" + f.Aborted + ")"
	}
	fmt.Fprintf(&b, "failover of %s (%s)\n", f.Master, state)
	for _, s := range f.Steps {
		fmt.Fprintf(&b, "  %-30s +%7.0f ms  from %s (seen by %d)\n", s.Type, ms(s.Since), s.Source, s.Seen)
	}
	return b.String()
}

// ms converts a duration to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
