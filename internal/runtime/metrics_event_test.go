package runtime

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/core"
)

func TestParseEvent(t *testing.T) {
	tests := []struct {
		typ, msg string
		want     EventInfo
	}{
		{"+sdown", "master mym 127.0.0.1 6379",
			EventInfo{Type: "+sdown", Kind: "master", Name: "mym", IP: "127.0.0.1", Port: 6379, Master: "mym", MasterIP: "127.0.0.1", MasterPort: 6379}},
		{"+odown", "master mym 127.0.0.1 6379 #quorum 2/2",
			EventInfo{Type: "+odown", Kind: "master", Name: "mym", IP: "127.0.0.1", Port: 6379, Master: "mym", MasterIP: "127.0.0.1", MasterPort: 6379, Detail: "#quorum 2/2"}},
		{"+selected-slave", "slave 127.0.0.1:22002 127.0.0.1 22002 @ mym 127.0.0.1 22000",
			EventInfo{Type: "+selected-slave", Kind: "slave", Name: "127.0.0.1:22002", IP: "127.0.0.1", Port: 22002, Master: "mym", MasterIP: "127.0.0.1", MasterPort: 22000}},
		{"+sentinel-address-switch", "master mym 10.0.0.1 6379 ip 10.0.0.9 port 26379 for abc",
			EventInfo{Type: "+sentinel-address-switch", Kind: "master", Name: "mym", IP: "10.0.0.1", Port: 6379, Master: "mym", MasterIP: "10.0.0.1", MasterPort: 6379, Detail: "ip 10.0.0.9 port 26379 for abc"}},
		{"+switch-master", "mym 127.0.0.1 6379 127.0.0.1 6380",
			EventInfo{Type: "+switch-master", Master: "mym", Detail: "mym 127.0.0.1 6379 127.0.0.1 6380"}},
		{"+new-epoch", "7", EventInfo{Type: "+new-epoch", Detail: "7"}},
		{"+tilt", "#tilt mode entered", EventInfo{Type: "+tilt", Detail: "#tilt mode entered"}},
		{"+sdown", "master mym 127.0.0.1 notaport", EventInfo{Type: "+sdown", Detail: "master mym 127.0.0.1 notaport"}},
		{"+sdown", "slave a b 1 @ m x", EventInfo{Type: "+sdown", Kind: "slave", Name: "a", IP: "b", Port: 1, Detail: "@ m x"}},
		{"+switch-master", "", EventInfo{Type: "+switch-master"}},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.msg, func(t *testing.T) {
			if got := ParseEvent(core.Emit{Type: tt.typ, Msg: tt.msg}); got != tt.want {
				t.Errorf("ParseEvent = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// fielder is a JSON handler that asks for event fields.
type fielder struct{ slog.Handler }

func (fielder) EventFields() bool { return true }

func TestLogEventFields(t *testing.T) {
	ev := core.Emit{Type: "+odown", Msg: "master mym 127.0.0.1 6379 #quorum 2/2", Level: core.LevelWarning}
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
