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
