package ops

import (
	"slices"
	"strings"
	"testing"
	"time"
)

type ev struct {
	ms      int
	src     string
	channel string
	payload string
}

func feed(tl *Timeline, evs []ev) {
	t0 := time.Unix(1000, 0)
	for _, e := range evs {
		tl.Add(ParseEvent(t0.Add(time.Duration(e.ms)*time.Millisecond), e.src, e.channel, e.payload))
	}
}

func TestTimeline(t *testing.T) {
	t.Parallel()
	const m = "master mym 10.0.0.1 6379"
	const sw = "mym 10.0.0.1 6379 10.0.0.2 6379"
	tests := []struct {
		name      string
		evs       []ev
		failovers int
		steps     []string // of the first failover
		since     []int    // ms since start per step
		complete  bool
		seen      int // Seen of +switch-master
		aborted   string
	}{
		{
			name: "crash failover seen by three sentinels",
			evs: []ev{
				{0, "a", "+sdown", m}, {30, "b", "+sdown", m}, {100, "a", "+odown", m + " #quorum 2/2"},
				{110, "a", "+try-failover", m}, {150, "a", "+elected-leader", m},
				{200, "a", "+selected-slave", "slave 10.0.0.2:6379 10.0.0.2 6379 @ mym 10.0.0.1 6379"},
				{260, "a", "+failover-state-wait-promotion", "slave 10.0.0.2:6379 10.0.0.2 6379 @ mym 10.0.0.1 6379"},
				{900, "a", "+promoted-slave", "slave 10.0.0.2:6379 10.0.0.2 6379 @ mym 10.0.0.1 6379"},
				{1000, "b", "+switch-master", sw}, {1001, "a", "+failover-end", m}, {1002, "a", "+switch-master", sw},
				{1010, "c", "+switch-master", sw},
				{2000, "a", "+sdown", "slave 10.0.0.1:6379 10.0.0.1 6379 @ mym 10.0.0.2 6379"},
			},
			failovers: 1,
			steps:     []string{"+sdown", "+odown", "+try-failover", "+elected-leader", "+selected-slave", "+failover-state-wait-promotion", "+promoted-slave", "+switch-master", "+failover-end"},
			since:     []int{0, 100, 110, 150, 200, 260, 900, 1000, 1001},
			complete:  true, seen: 3,
		},
		{
			name: "forced failover starts at try-failover",
			evs: []ev{
				{0, "a", "+new-epoch", "3"}, {5, "a", "+try-failover", m}, {20, "a", "+elected-leader", m},
				{700, "b", "+switch-master", sw},
			},
			failovers: 1, steps: []string{"+try-failover", "+elected-leader", "+switch-master"}, since: []int{0, 15, 695},
			complete: true, seen: 1,
		},
		{
			name: "sdown blip is forgotten",
			evs: []ev{
				{0, "a", "+sdown", m}, {500, "a", "-sdown", m},
				{10000, "a", "+sdown", m}, {10100, "b", "+odown", m},
			},
			failovers: 1, steps: []string{"+sdown", "+odown"}, since: []int{0, 100},
		},
		{
			name: "abort is recorded",
			evs: []ev{
				{0, "a", "+sdown", m}, {50, "a", "+odown", m}, {60, "a", "+try-failover", m},
				{70, "a", "-failover-abort-no-good-slave", m},
			},
			failovers: 1, steps: []string{"+sdown", "+odown", "+try-failover"}, since: []int{0, 50, 60},
			aborted: "-failover-abort-no-good-slave",
		},
		{
			name:      "unrelated events only",
			evs:       []ev{{0, "a", "+sentinel", "sentinel x 1.1.1.1 26379 @ mym 10.0.0.1 6379"}, {1, "a", "+failover-end", m}, {2, "a", "+tilt", "#tilt mode entered"}},
			failovers: 0,
		},
		{
			name: "two failovers in a row",
			evs: []ev{
				{0, "a", "+try-failover", m}, {100, "a", "+switch-master", sw},
				{5000, "a", "+try-failover", "master mym 10.0.0.2 6379"}, {5100, "a", "+switch-master", "mym 10.0.0.2 6379 10.0.0.1 6379"},
			},
			failovers: 2, steps: []string{"+try-failover", "+switch-master"}, since: []int{0, 100}, complete: true, seen: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := NewTimeline()
			feed(tl, tc.evs)
			fo := tl.Failovers()
			if len(fo) != tc.failovers {
				t.Fatalf("failovers = %d, want %d: %+v", len(fo), tc.failovers, fo)
			}
			if tc.failovers == 0 {
				return
			}
			f := fo[0]
			var steps []string
			var since []int
			for _, s := range f.Steps {
				steps = append(steps, s.Type)
				since = append(since, int(s.Since/time.Millisecond))
			}
			if !slices.Equal(steps, tc.steps) || !slices.Equal(since, tc.since) {
				t.Errorf("steps = %v %v, want %v %v", steps, since, tc.steps, tc.since)
			}
			if f.Complete != tc.complete || f.Aborted != tc.aborted {
				t.Errorf("complete=%v aborted=%q, want %v %q", f.Complete, f.Aborted, tc.complete, tc.aborted)
			}
			if tc.complete {
				if s, _ := f.StepAt("+switch-master"); s.Seen != tc.seen {
					t.Errorf("+switch-master seen %d, want %d", s.Seen, tc.seen)
				}
				if f.From != "10.0.0.1:6379" || f.To != "10.0.0.2:6379" {
					t.Errorf("from %s to %s", f.From, f.To)
				}
				if !strings.Contains(f.String(), "complete: 10.0.0.1:6379 -> 10.0.0.2:6379") {
					t.Errorf("String() = %q", f.String())
				}
			}
		})
	}
}
