package runtime

import (
	"context"
	"log/slog"
)

// LevelGate is a log handler whose minimum level can change at run time:
// SENTINEL CONFIG SET loglevel (Redis 7.2) sets it. The inner handler
// must accept every level (build it with LevelDebug).
type LevelGate struct {
	inner slog.Handler
	level *slog.LevelVar
}

// NewLevelGate wraps inner with a changeable minimum level, initially
// level.
func NewLevelGate(inner slog.Handler, level slog.Level) *LevelGate {
	lv := &slog.LevelVar{}
	lv.Set(level)
	return &LevelGate{inner: inner, level: lv}
}

// SetLevel changes the minimum level.
func (g *LevelGate) SetLevel(l slog.Level) { g.level.Set(l) }

// Enabled reports whether records of level l are written.
func (g *LevelGate) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= g.level.Level() && g.inner.Enabled(ctx, l)
}

// Handle writes r through the inner handler.
func (g *LevelGate) Handle(ctx context.Context, r slog.Record) error {
	return g.inner.Handle(ctx, r)
}

// LogEventLine implements [EventLiner]: it passes the line to the inner
// handler when that is one and the level is enabled.
func (g *LevelGate) LogEventLine(level slog.Level, typ, msg string) bool {
	el, ok := g.inner.(EventLiner)
	if !ok {
		return false
	}
	if !g.Enabled(context.Background(), level) {
		return true
	}
	return el.LogEventLine(level, typ, msg)
}

// WithAttrs keeps the gate over the inner handler's WithAttrs.
func (g *LevelGate) WithAttrs(as []slog.Attr) slog.Handler {
	return &LevelGate{inner: g.inner.WithAttrs(as), level: g.level}
}

// WithGroup keeps the gate over the inner handler's WithGroup.
func (g *LevelGate) WithGroup(name string) slog.Handler {
	return &LevelGate{inner: g.inner.WithGroup(name), level: g.level}
}

// applyLogLevel sets the logger's level to the persisted loglevel when the
// logger is a LevelGate (cmd/gosentinel builds one).
func (r *Runtime) applyLogLevel(name string) {
	if name == "" || r.opts.Logger == nil {
		return
	}
	g, ok := r.opts.Logger.Handler().(*LevelGate)
	if !ok {
		return
	}
	if l, err := ParseLogLevel(name); err == nil {
		g.SetLevel(l)
	}
}

// EventFields passes the inner handler's EventFields through (structured
// event attributes for --log-format json, see internal/metrics).
func (g *LevelGate) EventFields() bool {
	f, ok := g.inner.(interface{ EventFields() bool })
	return ok && f.EventFields()
}
