package runtime

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/core"
)

func TestEventInfoOf(t *testing.T) {
	sub := &core.Subject{Role: core.RoleReplica, Name: "127.0.0.1:22002", IP: "127.0.0.1", Port: 22002, Master: "mym", MasterIP: "127.0.0.1", MasterPort: 22000}
	got := EventInfoOf(core.Emit{Type: "+selected-slave", Msg: sub.String(), Subject: sub, Master: "mym"})
	want := EventInfo{Type: "+selected-slave", Kind: "slave", Name: "127.0.0.1:22002", IP: "127.0.0.1", Port: 22002, Master: "mym", MasterIP: "127.0.0.1", MasterPort: 22000}
	if got != want {
		t.Errorf("EventInfoOf = %+v\nwant %+v", got, want)
	}
	got = EventInfoOf(core.Emit{Type: "+new-epoch", Msg: "7", Master: "mym", Detail: "7"})
	if want := (EventInfo{Type: "+new-epoch", Master: "mym", Detail: "7"}); got != want {
		t.Errorf("EventInfoOf = %+v\nwant %+v", got, want)
	}
}

// fielder is a JSON handler that asks for event fields.
type fielder struct{ slog.Handler }

func (fielder) EventFields() bool { return true }

func TestLogEventFields(t *testing.T) {
	sub := &core.Subject{Role: core.RoleMaster, Name: "mym", IP: "127.0.0.1", Port: 6379, Master: "mym", MasterIP: "127.0.0.1", MasterPort: 6379}
	ev := core.Emit{Type: "+odown", Msg: sub.String() + " #quorum 2/2", Level: core.LevelWarning, Subject: sub, Master: "mym", Detail: "#quorum 2/2"}
	tests := []struct {
		name    string
		handler func(*bytes.Buffer) slog.Handler
		check   func(t *testing.T, out string)
	}{
		{"redis line, no fields", func(b *bytes.Buffer) slog.Handler { return NewRedisHandler(b, LevelDebug) },
			func(t *testing.T, out string) {
				if !strings.HasSuffix(out, " # +odown master mym 127.0.0.1 6379 #quorum 2/2\n") {
					t.Errorf("line = %q", out)
				}
			}},
		{"json with fields", func(b *bytes.Buffer) slog.Handler { return fielder{slog.NewJSONHandler(b, nil)} },
			func(t *testing.T, out string) {
				var rec struct {
					Msg   string
					Event map[string]any
				}
				if err := json.Unmarshal([]byte(out), &rec); err != nil {
					t.Fatalf("%v: %q", err, out)
				}
				want := map[string]any{"type": "+odown", "kind": "master", "name": "mym", "ip": "127.0.0.1", "port": 6379.0,
					"master": "mym", "master_ip": "127.0.0.1", "master_port": 6379.0, "detail": "#quorum 2/2"}
				if rec.Msg != "+odown master mym 127.0.0.1 6379 #quorum 2/2" || len(rec.Event) != len(want) {
					t.Fatalf("record = %+v", rec)
				}
				for k, v := range want {
					if rec.Event[k] != v {
						t.Errorf("event.%s = %v, want %v", k, rec.Event[k], v)
					}
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			r := &Runtime{log: slog.New(tt.handler(&b))}
			r.logEvent(ev)
			if strings.Count(b.String(), "\n") != 1 {
				t.Fatalf("want exactly one line, got %q", b.String())
			}
			tt.check(t, b.String())
		})
	}
}

func TestCountScripts(t *testing.T) {
	job := func(flags string) core.Value {
		return core.Map(core.Bulk("argv"), core.Array(core.Bulk("/x")), core.Bulk("flags"), core.Bulk(flags))
	}
	tests := []struct {
		name            string
		jobs            []core.Value
		running, queued int
	}{
		{"none", nil, 0, 0},
		{"mixed", []core.Value{job("running"), job("scheduled"), job("scheduled")}, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, q := countScripts(respValue(core.Array(tt.jobs...)))
			if r != tt.running || q != tt.queued {
				t.Errorf("countScripts = %d, %d; want %d, %d", r, q, tt.running, tt.queued)
			}
		})
	}
}

// lastLine keeps the last line written to it, without allocating.
type lastLine struct{ b []byte }

func (l *lastLine) Write(p []byte) (int, error) {
	l.b = append(l.b[:0], p...)
	return len(p), nil
}

// TestLogEventNoJoin: the Redis line handler writes an event's line from
// its type and message, without the joined string (1 KiB of garbage per
// event in a SENTINEL RESET * storm of masters with long names).
func TestLogEventNoJoin(t *testing.T) {
	w := &lastLine{b: make([]byte, 0, 4096)}
	r := &Runtime{log: slog.New(NewLevelGate(NewRedisHandler(w, LevelDebug), LevelNotice))}
	name := strings.Repeat("m", 1000)
	ev := core.Emit{Type: "+reset-master", Msg: "master " + name + " 127.0.0.1 6379", Level: core.LevelWarning}
	r.logEvent(ev)
	if want := " # +reset-master master " + name + " 127.0.0.1 6379\n"; !strings.HasSuffix(string(w.b), want) {
		t.Fatalf("line = %q", w.b)
	}
	if raceEnabled {
		return // sync.Pool drops buffers at random under -race (make test reruns this without it)
	}
	if a := testing.AllocsPerRun(100, func() { r.logEvent(ev) }); a >= 1 {
		t.Errorf("logEvent allocates %.0f times per event, want 0", a)
	}
}
