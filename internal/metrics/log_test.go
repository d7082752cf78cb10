package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/runtime"
)

func TestMaskSecrets(t *testing.T) {
	tests := []struct{ in, want string }{
		{"+set master mym 127.0.0.1 6379 auth-pass s3cret", "+set master mym 127.0.0.1 6379 auth-pass ******"},
		{"+set master mym 127.0.0.1 6379 auth-pass ******", "+set master mym 127.0.0.1 6379 auth-pass ******"},
		{"sentinel auth-pass mym s3cret", "sentinel auth-pass mym ******"},
		{`SENTINEL AUTH-PASS mym "with space"`, "SENTINEL AUTH-PASS mym ******"},
		{"sentinel sentinel-pass s3cret", "sentinel sentinel-pass ******"},
		{"requirepass s3cret and masterauth other", "requirepass ****** and masterauth ******"},
		{"user admin on >s3cret >two ~* +@all", "user admin on >****** >****** ~* +@all"},
		{"+sdown master mym 127.0.0.1 6379", "+sdown master mym 127.0.0.1 6379"},
		{"a > b without the u-word", "a > b without the u-word"},
	}
	for _, tt := range tests {
		if got := MaskSecrets(tt.in); got != tt.want {
			t.Errorf("MaskSecrets(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNewLogHandler(t *testing.T) {
	tests := []struct {
		format  string
		level   slog.Level
		wantErr bool
		check   func(t *testing.T, out string)
	}{
		{"text", runtime.LevelNotice, false, func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 2 || !strings.HasSuffix(lines[0], " # requirepass ******") ||
				!strings.HasSuffix(lines[1], " * hello password=******") {
				t.Errorf("text log = %q", out)
			}
		}},
		{"", runtime.LevelWarning, false, func(t *testing.T, out string) {
			if strings.Count(out, "\n") != 1 || strings.Contains(out, "hello") {
				t.Errorf("warning-level text log = %q", out)
			}
		}},
		{"JSON", runtime.LevelDebug, false, func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 3 {
				t.Fatalf("json log = %q", out)
			}
			wantLevels := []string{"warning", "notice", "debug"}
			for i, l := range lines {
				var rec map[string]any
				if err := json.Unmarshal([]byte(l), &rec); err != nil {
					t.Fatalf("line %d: %v: %q", i, err, l)
				}
				if rec["level"] != wantLevels[i] || rec["pid"] == nil {
					t.Errorf("line %d: level %v pid %v", i, rec["level"], rec["pid"])
				}
			}
			if strings.Contains(out, "s3cret") {
				t.Errorf("secret in json log: %q", out)
			}
		}},
		{"xml", runtime.LevelNotice, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			var b bytes.Buffer
			h, err := NewLogHandler(&b, tt.level, tt.format)
			if tt.wantErr {
				if !errors.Is(err, ErrLogFormat) {
					t.Fatalf("error = %v, want ErrLogFormat", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			log := slog.New(h)
			log.Log(t.Context(), runtime.LevelWarning, "requirepass s3cret")
			log.Log(t.Context(), runtime.LevelNotice, "hello", "password", "s3cret")
			log.With("auth", slog.GroupValue(slog.String("sentinel-pass", "s3cret"))).Log(t.Context(), runtime.LevelDebug, "debug line")
			if strings.Contains(b.String(), "s3cret") {
				t.Errorf("secret logged: %q", b.String())
			}
			tt.check(t, b.String())
			if f, ok := h.(runtime.EventFielder); !ok || f.EventFields() != (strings.ToLower(tt.format) == "json") {
				t.Errorf("EventFields for %q wrong", tt.format)
			}
		})
	}
}

// TestEventLine: the text handler writes an event line from its type and
// message (runtime.EventLiner) exactly as the slog path writes the joined
// message, declines a line that may hold a secret (the slog path masks
// it), and declines in the JSON format (which adds the event's fields).
func TestEventLine(t *testing.T) {
	var viaSlog, viaLiner bytes.Buffer
	hs, err := NewLogHandler(&viaSlog, runtime.LevelDebug, "text")
	if err != nil {
		t.Fatal(err)
	}
	hl, _ := NewLogHandler(&viaLiner, runtime.LevelDebug, "text")
	gate := runtime.NewLevelGate(hl, runtime.LevelNotice)
	slog.New(hs).Log(t.Context(), runtime.LevelWarning, "+odown master mym 127.0.0.1 6379 #quorum 2/2")
	if !gate.LogEventLine(runtime.LevelWarning, "+odown", "master mym 127.0.0.1 6379 #quorum 2/2") {
		t.Fatal("text handler declined a plain event line")
	}
	// Lines start with the pid and a time stamp (to the millisecond).
	strip := func(s string) string { return s[strings.Index(s, ":X ")+len(":X 02 Jan 2006 15:04:05.000"):] }
	if got, want := strip(viaLiner.String()), strip(viaSlog.String()); got != want {
		t.Errorf("event line %q, slog line %q", got, want)
	}
	viaLiner.Reset()
	if !gate.LogEventLine(runtime.LevelVerbose, "+reboot", "master mym 127.0.0.1 6379") || viaLiner.Len() != 0 {
		t.Errorf("a line under the gate's level: handled false or written %q", viaLiner.String())
	}
	if gate.LogEventLine(runtime.LevelNotice, "+set", "master mym 127.0.0.1 6379 auth-pass s3cret") {
		t.Error("a line with a secret was written without masking")
	}
	if gate.LogEventLine(runtime.LevelNotice, "+set", "master mym 127.0.0.1 6379 AUTH-USER x") {
		t.Error("a line that names a user (ACL rules) was written without masking")
	}
	hj, _ := NewLogHandler(&viaLiner, runtime.LevelDebug, "json")
	if runtime.NewLevelGate(hj, runtime.LevelDebug).LogEventLine(runtime.LevelNotice, "+sdown", "master mym 127.0.0.1 6379") {
		t.Error("the JSON handler took an event line without its fields")
	}
}
