package hostile

import (
	"bufio"
	"fmt"
	"os"
	"time"
)

// writeSamples writes the victim's rounds of one run to path: a header
// line "# pid <sentinel pid> base <ns> load <ns> stop <ns> end <ns>"
// (wall clock, Unix nanoseconds), then one line per round, "<phase>
// <start-ns> <dur-ns> <ok>", phase being base, load, after or pre.
func writeSamples(path string, pid int, base, load, stop, end time.Time, samples []sample) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# pid %d base %d load %d stop %d end %d\n", pid, base.UnixNano(), load.UnixNano(), stop.UnixNano(), end.UnixNano())
	for _, sm := range samples {
		phase := "pre"
		switch {
		case !sm.start.Before(end):
			phase = "after"
		case !sm.start.Before(load):
			phase = "load"
		case !sm.start.Before(base):
			phase = "base"
		}
		ok := 0
		if sm.ok {
			ok = 1
		}
		fmt.Fprintf(w, "%s %d %d %d\n", phase, sm.start.UnixNano(), sm.dur.Nanoseconds(), ok)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("samples: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	return nil
}
