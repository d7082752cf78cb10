package runtime

import (
	"testing"
	"time"
)

// TestLogTimeFormatsOncePerSecond: the lines of one second format the
// date once (a SENTINEL RESET * of hundreds of masters logs hundreds of
// lines a step), and every timestamp is what time.Format gives, across
// second and millisecond boundaries.
func TestLogTimeFormatsOncePerSecond(t *testing.T) {
	lastLogTime.Store(nil)
	start := logTimeMiss.Load()
	t0 := time.Unix(1_700_000_000, 0)
	for i := range 1000 {
		tm := t0.Add(time.Duration(i) * time.Millisecond).Add(time.Duration(i%7) * 123 * time.Microsecond)
		got := string(appendLogTime(nil, tm))
		if want := tm.Format("02 Jan 2006 15:04:05.000"); got != want {
			t.Fatalf("appendLogTime(%v) = %q, want %q", tm, got, want)
		}
	}
	if n := logTimeMiss.Load() - start; n != 1 {
		t.Fatalf("1000 lines within one second formatted the date %d times, want 1", n)
	}
	for _, tm := range []time.Time{t0.Add(999 * time.Millisecond), t0.Add(time.Second), t0.Add(-time.Millisecond), t0.UTC(), t0.In(time.FixedZone("X", 3600))} {
		if got, want := string(appendLogTime(nil, tm)), tm.Format("02 Jan 2006 15:04:05.000"); got != want {
			t.Fatalf("appendLogTime(%v) = %q, want %q", tm, got, want)
		}
	}
}
