package core

import (
	"runtime"
	"strings"
	"testing"
)

// TestEventTextCut: an event message is cut at MaxEventLen bytes like
// sentinelEvent's LOG_MAX_LEN buffer, for the log line, Pub/Sub and the
// notification script alike, while Subject and Detail stay whole; short
// messages are unchanged.
func TestEventTextCut(t *testing.T) {
	long := strings.Repeat("n", 8192)
	master := &Subject{Role: RoleMaster, Name: long, IP: "127.0.0.1", Port: 6379, Master: long, MasterIP: "127.0.0.1", MasterPort: 6379}
	replica := &Subject{Role: RoleReplica, Name: "10.0.0.2:6380", IP: "10.0.0.2", Port: 6380, Master: long, MasterIP: "127.0.0.1", MasterPort: 6379}
	short := &Subject{Role: RoleReplica, Name: "10.0.0.2:6380", IP: "10.0.0.2", Port: 6380, Master: "mym", MasterIP: "127.0.0.1", MasterPort: 6379}
	for _, tc := range []struct {
		sub    *Subject
		detail string
	}{
		{master, ""}, {master, "#quorum 2/2"}, {replica, ""}, {replica, "#x"},
		{short, ""}, {short, "#quorum 2/2"}, {nil, long}, {nil, "mym 127.0.0.1 6379 127.0.0.1 6380"},
	} {
		full := tc.detail
		if tc.sub != nil {
			full = tc.sub.String()
			if tc.detail != "" {
				full += " " + tc.detail
			}
		}
		want := full[:min(len(full), MaxEventLen)]
		if got := eventText(tc.sub, tc.detail); got != want {
			t.Errorf("eventText(%.40v, %.20q) = %d bytes %.60q, want %d bytes %.60q", tc.sub, tc.detail, len(got), got, len(want), want)
		}
	}
	s := newTestCore(t)
	e := s.newEmit(LevelWarning, "+reset-master", nil, master, "")
	if len(e.Msg) != MaxEventLen || e.Subject.Name != long || e.Master != long {
		t.Errorf("Emit: Msg %d bytes (want %d), Subject.Name %d bytes, Master %d bytes (want whole)", len(e.Msg), MaxEventLen, len(e.Subject.Name), len(e.Master))
	}
}

// TestEventTextAllocation: the message of an event about a master with an
// 8 KiB name costs about MaxEventLen bytes, not a full-length text and
// its copies (a SENTINEL RESET * of 200 such masters allocated ~8 MB of
// event texts per step, the churn behind the large-event load's peak RSS,
// docs/security.md).
func TestEventTextAllocation(t *testing.T) {
	long := strings.Repeat("n", 8192)
	sub := &Subject{Role: RoleReplica, Name: "10.0.0.2:6380", IP: "10.0.0.2", Port: 6380, Master: long, MasterIP: "127.0.0.1", MasterPort: 6379}
	const n = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		_ = eventText(sub, "#x")
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 2*MaxEventLen {
		t.Errorf("eventText allocated %d bytes per event, want at most %d", per, 2*MaxEventLen)
	}
}

// TestEventTextCutAnywhere: wherever MaxEventLen falls in the message (in
// a name, an address, a port, the detail), eventText is the full text cut
// there.
func TestEventTextCutAnywhere(t *testing.T) {
	for n := MaxEventLen - 70; n <= MaxEventLen; n++ {
		name := strings.Repeat("n", n)
		for _, sub := range []*Subject{
			{Role: RoleMaster, Name: name, IP: "127.0.0.1", Port: 26379, Master: name, MasterIP: "127.0.0.1", MasterPort: 26379},
			{Role: RoleReplica, Name: "10.0.0.2:6380", IP: "10.0.0.2", Port: 6380, Master: name[30:], MasterIP: "127.0.0.1", MasterPort: 16379},
		} {
			for _, detail := range []string{"", "#quorum 2/2"} {
				full := sub.String()
				if detail != "" {
					full += " " + detail
				}
				want := full[:min(len(full), MaxEventLen)]
				if got := eventText(sub, detail); got != want {
					t.Fatalf("name of %d bytes, detail %q: got ...%q, want ...%q", n, detail, got[max(0, len(got)-30):], want[max(0, len(want)-30):])
				}
			}
		}
	}
}

// TestEventTextOneAllocation: an event's text is one allocation, whatever
// the ports (strconv.Itoa allocated for each port above 99: three
// allocations for a replica's event before; a SENTINEL RESET * of 200
// masters builds 200 texts in one step).
func TestEventTextOneAllocation(t *testing.T) {
	sub := &Subject{Role: RoleReplica, Name: "10.0.0.2:6380", IP: "10.0.0.2", Port: 6380, Master: "mym", MasterIP: "127.0.0.1", MasterPort: 6379}
	if n := testing.AllocsPerRun(100, func() { _ = eventText(sub, "#x") }); n != 1 {
		t.Fatalf("%.1f allocations per event text, want 1", n)
	}
}
