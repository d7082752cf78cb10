package runtime

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gosentinel/gosentinel/internal/core"
)

// Redis log levels as slog levels: debug < verbose < notice < warning.
const (
	LevelDebug   slog.Level = slog.LevelDebug - 4
	LevelVerbose slog.Level = slog.LevelDebug
	LevelNotice  slog.Level = slog.LevelInfo
	LevelWarning slog.Level = slog.LevelWarn
)

// ParseLogLevel maps a redis.conf loglevel (debug, verbose, notice,
// warning; "nothing" disables logging) to a slog level.
func ParseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return LevelDebug, nil
	case "verbose":
		return LevelVerbose, nil
	case "", "notice":
		return LevelNotice, nil
	case "warning":
		return LevelWarning, nil
	case "nothing":
		return slog.LevelError + 100, nil
	}
	return 0, fmt.Errorf("runtime: unknown loglevel %q", s)
}

// coreLevel converts a core log level.
func coreLevel(l core.Level) slog.Level {
	switch l {
	case core.LevelDebug:
		return LevelDebug
	case core.LevelVerbose:
		return LevelVerbose
	case core.LevelWarning:
		return LevelWarning
	}
	return LevelNotice
}

// RedisHandler is a slog.Handler writing lines the way Redis does:
//
//	<pid>:X <dd Mon yyyy HH:MM:SS.mmm> <c> <msg>
//
// where <c> is '.' debug, '-' verbose, '*' notice, '#' warning. Attributes
// are appended as key=value after the message.
type RedisHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Leveler
	pid   int
	attrs string
}

// NewRedisHandler returns a handler writing to w at or above level.
func NewRedisHandler(w io.Writer, level slog.Leveler) *RedisHandler {
	return &RedisHandler{mu: &sync.Mutex{}, w: w, level: level, pid: os.Getpid()}
}

// Enabled reports whether records of level l are written.
func (h *RedisHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

// Handle writes one line.
func (h *RedisHandler) Handle(_ context.Context, r slog.Record) error {
	return h.writeLine(r.Level, r.Time, "", r.Message, &r)
}

// handleEvent writes the line of a Sentinel event, "<type> <msg>", without
// joining the two strings first ([eventLiner]).
func (h *RedisHandler) handleEvent(level slog.Level, typ, msg string) error {
	return h.writeLine(level, time.Now(), typ, msg, nil)
}

// writeLine formats one line, prefix and msg separated by a space when
// prefix is set, then the handler's attributes and those of r (if any).
func (h *RedisHandler) writeLine(level slog.Level, t time.Time, prefix, msg string, r *slog.Record) error {
	c := byte('*')
	switch {
	case level < LevelVerbose:
		c = '.'
	case level < LevelNotice:
		c = '-'
	case level >= LevelWarning:
		c = '#'
	}
	if t.IsZero() {
		t = time.Now()
	}
	// One pooled buffer per line instead of a builder grown by doubling
	// and a string copy: a storm of events (SENTINEL RESET * of hundreds
	// of masters) logs hundreds of lines per step.
	bp := lineBufs.Get().(*[]byte)
	b := strconv.AppendInt((*bp)[:0], int64(h.pid), 10)
	b = append(b, ":X "...)
	b = appendLogTime(b, t)
	b = append(b, ' ', c, ' ')
	if prefix != "" {
		b = append(b, prefix...)
		b = append(b, ' ')
	}
	b = append(b, msg...)
	b = append(b, h.attrs...)
	if r != nil && r.NumAttrs() > 0 {
		b = appendAttrs(b, r)
	}
	b = append(b, '\n')
	h.mu.Lock()
	_, err := h.w.Write(b)
	h.mu.Unlock()
	if cap(b) <= maxPooledLine {
		*bp = b
		lineBufs.Put(bp)
	}
	return err
}

// logTime caches the formatted "02 Jan 2006 15:04:05." of the last
// second logged: a step that logs hundreds of lines (SENTINEL RESET * of
// hundreds of masters) formats the date once, not once a line
// (docs/security.md, "Latency under these loads"). Time zone changes
// (DST) happen at whole seconds, so a cache per Unix second is exact.
type logTime struct {
	sec    int64
	prefix []byte
}

var (
	lastLogTime atomic.Pointer[logTime]
	logTimeMiss atomic.Int64 // formats of a new second (tests)
)

// appendLogTime appends t as "02 Jan 2006 15:04:05.000" in the local time
// zone.
func appendLogTime(b []byte, t time.Time) []byte {
	sec := t.Unix()
	lt := lastLogTime.Load()
	if lt == nil || lt.sec != sec || t.Location() != time.Local {
		if t.Location() != time.Local {
			return t.AppendFormat(b, "02 Jan 2006 15:04:05.000")
		}
		logTimeMiss.Add(1)
		lt = &logTime{sec: sec, prefix: t.AppendFormat(nil, "02 Jan 2006 15:04:05.")}
		lastLogTime.Store(lt)
	}
	b = append(b, lt.prefix...)
	ms := t.Nanosecond() / 1e6
	return append(b, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
}

// EventLiner is implemented by log handlers that write a Sentinel event's
// line, "<type> <message>", from the two parts without the caller joining
// them ([RedisHandler], [LevelGate] and the metrics package's masking
// handler over one): a SENTINEL RESET * of hundreds of masters logs
// hundreds of ~1 KiB lines per step, and the joined string was one more
// 1 KiB of garbage per event. LogEventLine returns false when the handler
// cannot write this line so (the caller then logs it through slog); a
// level the handler does not log counts as written.
type EventLiner interface {
	LogEventLine(level slog.Level, typ, msg string) (ok bool)
}

// LogEventLine implements [EventLiner].
func (h *RedisHandler) LogEventLine(level slog.Level, typ, msg string) bool {
	if !h.Enabled(context.Background(), level) {
		return true
	}
	_ = h.handleEvent(level, typ, msg)
	return true
}

// appendAttrs appends r's attributes as " key=value". Apart from
// writeLine: the closure would move writeLine's buffer variable to the
// heap, one allocation per line even without attributes.
func appendAttrs(b []byte, r *slog.Record) []byte {
	r.Attrs(func(a slog.Attr) bool {
		b = fmt.Appendf(b, " %s=%v", a.Key, a.Value)
		return true
	})
	return b
}

// lineBufs holds the buffers RedisHandler formats lines in; one longer
// than maxPooledLine is left to the collector.
var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

const maxPooledLine = 4 << 10

// WithAttrs returns a handler that appends attrs to every line.
func (h *RedisHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range attrs {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	n.attrs = b.String()
	return &n
}

// WithGroup is not used by gosentinel; groups are flattened.
func (h *RedisHandler) WithGroup(string) slog.Handler { return h }
