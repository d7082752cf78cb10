package runtime

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestLevelGate: the gate filters by a level that changes at run time
// (SENTINEL CONFIG SET loglevel), "nothing" silences everything.
func TestLevelGate(t *testing.T) {
	var buf bytes.Buffer
	g := NewLevelGate(NewRedisHandler(&buf, LevelDebug), LevelNotice)
	log := slog.New(g)
	r := &Runtime{opts: Options{Logger: log}}
	ctx := context.Background()
	log.Log(ctx, LevelVerbose, "hidden-1")
	log.Log(ctx, LevelNotice, "shown-1")
	r.applyLogLevel("debug")
	log.Log(ctx, LevelVerbose, "shown-2")
	r.applyLogLevel("nothing")
	log.Log(ctx, LevelWarning, "hidden-2")
	out := buf.String()
	for _, w := range []string{"shown-1", "shown-2"} {
		if !strings.Contains(out, w) {
			t.Errorf("missing %s in %q", w, out)
		}
	}
	for _, w := range []string{"hidden-1", "hidden-2"} {
		if strings.Contains(out, w) {
			t.Errorf("%s logged: %q", w, out)
		}
	}
}
