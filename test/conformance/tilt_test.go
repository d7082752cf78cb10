package conformance

import (
	"strings"
	"testing"
	"time"
)

// TestTilt pauses the sentinel itself longer than tilt-trigger: on resume
// it must enter TILT (+tilt), report it in INFO and in votes, and leave it
// after tilt-period (-tilt).
func TestTilt(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{replicas: 0, quorum: 1})
	var got [2][]string
	for i, s := range ps {
		s.waitDiscovered(t)
		cl := dialSide(t, s)
		cl.do("SENTINEL", "DEBUG", "tilt-trigger", "1000", "tilt-period", "1500")
		sb := subscribe(t, s, 3)
		s.proc.Stop()
		// The stimulus is elapsed time itself: nothing to await.
		time.Sleep(1600 * time.Millisecond)
		s.proc.Cont()
		in := sb.until(t, 10*time.Second, func(e event) bool { return e.typ == "+tilt" })
		info := cl.do("INFO", "sentinel").Str
		vote := s.render(cl.do("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", itoa(s.top.Master.Port), "0", "*"))
		out := sb.until(t, 10*time.Second, func(e event) bool { return e.typ == "-tilt" })
		after := cl.do("INFO", "sentinel").Str
		got[i] = []string{
			rawOf(filter(in, "+tilt")), infoLine(info, "sentinel_tilt:"), vote,
			rawOf(filter(out, "-tilt", "+tilt")), infoLine(after, "sentinel_tilt:"), infoLine(after, "sentinel_tilt_since_seconds:"),
		}
	}
	if got[0][1] != "sentinel_tilt:1" || !strings.Contains(got[0][0], "#tilt mode entered") {
		t.Errorf("real sentinel did not enter TILT: %q", got[0])
	}
	if d := diffLines(t, got[0], got[1]); d != "" {
		t.Errorf("TILT differs:\n%s", d)
	}
}

// infoLine returns the INFO line starting with prefix.
func infoLine(info, prefix string) string {
	for _, l := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return prefix + "<missing>"
}
