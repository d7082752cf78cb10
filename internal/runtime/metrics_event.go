package runtime

import (
	"context"
	"log/slog"
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// EventInfo is a Sentinel event (reference §10) split into fields. The
// message of most events starts with the "%@" prefix
// "<kind> <name> <ip> <port> [@ <master> <master-ip> <master-port>]";
// the other ones (+new-epoch, +vote-for-leader, +switch-master, +tilt,
// -script-*) only fill Type, Master (for +switch-master) and Detail.
type EventInfo struct {
	Type string // "+sdown", "-failover-abort-no-good-slave"...
	// Kind is "master", "slave" or "sentinel" when the message has a %@
	// prefix, "" otherwise.
	Kind string
	Name string // master name, "ip:port" of a replica, run id of a sentinel
	IP   string
	Port int
	// Master is the master the event is about: Name for a master, the
	// name after "@" for replicas and sentinels, the first word of
	// +switch-master.
	Master     string
	MasterIP   string
	MasterPort int
	// Detail is what follows the prefix ("#quorum 2/2", "quorum 2"...),
	// or the whole message when there is no prefix.
	Detail string
}

// ParseEvent splits an emitted event. It never fails: what does not match
// the %@ format is left in Detail.
func ParseEvent(e core.Emit) EventInfo {
	ev := EventInfo{Type: e.Type, Detail: e.Msg}
	f := strings.Fields(e.Msg)
	if e.Type == "+switch-master" && len(f) >= 1 {
		ev.Master = f[0]
		return ev
	}
	if len(f) < 4 || (f[0] != "master" && f[0] != "slave" && f[0] != "sentinel") {
		return ev
	}
	port, err := strconv.Atoi(f[3])
	if err != nil {
		return ev
	}
	ev.Kind, ev.Name, ev.IP, ev.Port = f[0], f[1], f[2], port
	rest := f[4:]
	if ev.Kind == "master" {
		ev.Master, ev.MasterIP, ev.MasterPort = ev.Name, ev.IP, ev.Port
	} else if len(rest) >= 4 && rest[0] == "@" {
		if mp, err := strconv.Atoi(rest[3]); err == nil {
			ev.Master, ev.MasterIP, ev.MasterPort = rest[1], rest[2], mp
			rest = rest[4:]
		}
	}
	ev.Detail = strings.Join(rest, " ")
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
	msg := e.Type + " " + e.Msg
	if h, ok := r.log.Handler().(EventFielder); ok && h.EventFields() {
		attrs := ParseEvent(e).Attrs()
		args := make([]any, len(attrs))
		for i, a := range attrs {
			args[i] = a
		}
		r.log.LogAttrs(ctx, level, msg, slog.Group("event", args...))
		return
	}
	r.log.Log(ctx, level, msg)
}
