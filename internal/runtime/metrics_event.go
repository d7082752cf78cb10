package runtime

import (
	"context"
	"log/slog"

	"github.com/gosentinel/gosentinel/internal/core"
)

// EventInfo is a Sentinel event (reference §10) as flat fields, for
// structured logs and metrics. It is read from the Emit's fields, never
// parsed back from its text.
type EventInfo struct {
	Type string // "+sdown", "-failover-abort-no-good-slave"...
	// Kind is "master", "slave" or "sentinel" when the message has a %@
	// prefix, "" otherwise.
	Kind string
	Name string // master name, "ip:port" of a replica, run id of a sentinel
	IP   string
	Port int
	// Master is the master the event is about: Name for a master, the
	// name after "@" for replicas and sentinels, the master of
	// +switch-master, +new-epoch and +vote-for-leader.
	Master     string
	MasterIP   string
	MasterPort int
	// Detail is what follows the prefix ("#quorum 2/2", "quorum 2"...),
	// or the whole message when there is no prefix.
	Detail string
}

// EventInfoOf flattens an emitted event's fields.
func EventInfoOf(e core.Emit) EventInfo {
	ev := EventInfo{Type: e.Type, Master: e.Master, Detail: e.Detail}
	if sub := e.Subject; sub != nil {
		ev.Kind, ev.Name, ev.IP, ev.Port = sub.Role.String(), sub.Name, sub.IP, sub.Port
		ev.MasterIP, ev.MasterPort = sub.MasterIP, sub.MasterPort
	}
	return ev
}

// Attrs returns the event as slog attributes (empty fields omitted).
func (ev EventInfo) Attrs() []slog.Attr {
	attrs := []slog.Attr{slog.String("type", ev.Type)}
	add := func(k, v string) {
		if v != "" {
			attrs = append(attrs, slog.String(k, v))
		}
	}
	add("kind", ev.Kind)
	add("name", ev.Name)
	add("ip", ev.IP)
	if ev.Port != 0 {
		attrs = append(attrs, slog.Int("port", ev.Port))
	}
	add("master", ev.Master)
	add("master_ip", ev.MasterIP)
	if ev.MasterPort != 0 {
		attrs = append(attrs, slog.Int("master_port", ev.MasterPort))
	}
	add("detail", ev.Detail)
	return attrs
}

// EventFielder is implemented by log handlers that want the structured
// fields of events (a JSON handler). Handlers that do not implement it, or
// return false, get the event as the plain Redis line "<type> <msg>".
type EventFielder interface {
	EventFields() bool
}

// logEvent logs an emitted event once: "<type> <msg>" at the event's
// level, with an "event" group of fields when the handler asks for them.
func (r *Runtime) logEvent(e core.Emit) {
	level := coreLevel(e.Level)
	ctx := context.Background()
	if !r.log.Enabled(ctx, level) {
		return
	}
	h := r.log.Handler()
	if el, ok := h.(EventLiner); ok && el.LogEventLine(level, e.Type, e.Msg) {
		return
	}
	msg := e.Type + " " + e.Msg
	if h, ok := h.(EventFielder); ok && h.EventFields() {
		attrs := EventInfoOf(e).Attrs()
		args := make([]any, len(attrs))
		for i, a := range attrs {
			args[i] = a
		}
		r.log.LogAttrs(ctx, level, msg, slog.Group("event", args...))
		return
	}
	r.log.Log(ctx, level, msg)
}
