package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"

	"github.com/gosentinel/gosentinel/internal/runtime"
)

// Log formats accepted by --log-format.
const (
	FormatText = "text" // Redis' line format (default)
	FormatJSON = "json" // one JSON object per line, events with fields
)

// ErrLogFormat is returned for a --log-format other than text or json.
var ErrLogFormat = errors.New("unknown log format (want text or json)")

// Masked replaces a secret in the log.
const Masked = "******"

// NewLogHandler returns the handler of a log format at level, writing to w.
// Both formats mask secrets ([MaskSecrets]); json also gets the fields of
// every Sentinel event (runtime.EventFielder) and Redis' level names.
func NewLogHandler(w io.Writer, level slog.Level, format string) (slog.Handler, error) {
	switch strings.ToLower(format) {
	case "", FormatText:
		return &maskHandler{inner: runtime.NewRedisHandler(w, level)}, nil
	case FormatJSON:
		h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: redisLevelNames})
		return &maskHandler{inner: h.WithAttrs([]slog.Attr{slog.Int("pid", os.Getpid())}), fields: true}, nil
	}
	return nil, fmt.Errorf("metrics: %q: %w", format, ErrLogFormat)
}

// redisLevelNames writes levels as Redis names them.
func redisLevelNames(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 || a.Key != slog.LevelKey {
		return a
	}
	l, ok := a.Value.Any().(slog.Level)
	if !ok {
		return a
	}
	name := "notice"
	switch {
	case l < runtime.LevelVerbose:
		name = "debug"
	case l < runtime.LevelNotice:
		name = "verbose"
	case l >= runtime.LevelWarning:
		name = "warning"
	}
	return slog.String(slog.LevelKey, name)
}

// secretPatterns find a secret after the directive or option that carries
// it; group 1 is kept, the rest of the match is masked.
var secretPatterns = []*regexp.Regexp{
	// "sentinel auth-pass <master> <password>" (config form) first, so
	// that the master name is kept; then "auth-pass <password>" (SENTINEL
	// SET form, +set event), sentinel-pass, requirepass, masterauth.
	regexp.MustCompile(`(?i)(\bsentinel\s+auth-pass\s+\S+\s+|\b(?:auth-pass|sentinel-pass|requirepass|masterauth)\s+)("[^"]*"|\S+)`),
}

// aclPassword finds ACL password rules (>password adds, <password
// removes); applied only to lines that mention a user.
var aclPassword = regexp.MustCompile(`(\s[<>])(\S+)`)

// mayHoldSecret reports whether MaskSecrets could change s, without
// allocating: whether s contains "pass", "masterauth" or "user" in any
// ASCII case. Each of the three words holds an 's', so only the places of
// an 's' or 'S' (found with strings.IndexByte, vectorised) are compared,
// instead of the three words at every byte: an event line of a SENTINEL
// RESET loop ("+reset-master master <name> <ip> <port>") has one or two
// (docs/security.md, "Latency under these loads").
func mayHoldSecret(s string) bool {
	return hasSecretWordAtS(s, 's') || hasSecretWordAtS(s, 'S')
}

// hasSecretWordAtS looks for the words of mayHoldSecret around each
// occurrence of the byte c ('s' or 'S') in s.
func hasSecretWordAtS(s string, c byte) bool {
	for off := 0; ; {
		j := strings.IndexByte(s[off:], c)
		if j < 0 {
			return false
		}
		i := off + j
		// "user": s at 1; "pass": s at 2 or 3; "masterauth": s at 2.
		if hasFoldAt(s, i-1, "user") || hasFoldAt(s, i-2, "pass") ||
			hasFoldAt(s, i-3, "pass") || hasFoldAt(s, i-2, "masterauth") {
			return true
		}
		off = i + 1
	}
}

// hasFoldAt reports whether s holds the lower-case ASCII word sub at i,
// ignoring ASCII case.
func hasFoldAt(s string, i int, sub string) bool {
	if i < 0 || i+len(sub) > len(s) {
		return false
	}
	for j := 0; j < len(sub); j++ {
		if s[i+j]|0x20 != sub[j] {
			return false
		}
	}
	return true
}

// MaskSecrets replaces the values of auth-pass, sentinel-pass,
// requirepass, masterauth and ACL '>password' rules in s with [Masked].
func MaskSecrets(s string) string {
	if !mayHoldSecret(s) {
		return s // fast path: nearly every line
	}
	for _, re := range secretPatterns {
		s = maskWith(re, s)
	}
	if strings.Contains(s, "user ") {
		s = maskWith(aclPassword, s)
	}
	return s
}

// maskWith replaces group 2 of every match of re by Masked.
func maskWith(re *regexp.Regexp, s string) string {
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if sub[2] == Masked {
			return m
		}
		return sub[1] + Masked
	})
}

// secretKey reports whether an attribute key names a secret.
func secretKey(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "pass") || strings.Contains(k, "secret") || k == "masterauth"
}

// maskHandler masks secrets in messages and attributes before the inner
// handler formats them.
type maskHandler struct {
	inner  slog.Handler
	fields bool
}

var (
	_ runtime.EventFielder = (*maskHandler)(nil)
	_ runtime.EventLiner   = (*maskHandler)(nil)
)

// LogEventLine implements runtime.EventLiner: an event line with nothing
// to mask goes to a text inner handler in two parts; the JSON format
// (with the event's fields) and a line that may hold a secret take the
// slog path.
func (h *maskHandler) LogEventLine(level slog.Level, typ, msg string) bool {
	el, ok := h.inner.(runtime.EventLiner)
	if !ok || h.fields || mayHoldSecret(typ) || mayHoldSecret(msg) {
		return false
	}
	return el.LogEventLine(level, typ, msg)
}

// EventFields implements runtime.EventFielder.
func (h *maskHandler) EventFields() bool { return h.fields }

// Enabled implements slog.Handler.
func (h *maskHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

// Handle implements slog.Handler.
func (h *maskHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, MaskSecrets(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(maskAttr(a))
		return true
	})
	if err := h.inner.Handle(ctx, out); err != nil {
		return fmt.Errorf("metrics: log: %w", err)
	}
	return nil
}

// WithAttrs implements slog.Handler.
func (h *maskHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	m := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		m[i] = maskAttr(a)
	}
	return &maskHandler{inner: h.inner.WithAttrs(m), fields: h.fields}
}

// WithGroup implements slog.Handler.
func (h *maskHandler) WithGroup(name string) slog.Handler {
	return &maskHandler{inner: h.inner.WithGroup(name), fields: h.fields}
}

func maskAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch {
	case v.Kind() == slog.KindGroup:
		g := v.Group()
		m := make([]slog.Attr, len(g))
		for i, x := range g {
			m[i] = maskAttr(x)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(m...)}
	case secretKey(a.Key):
		return slog.String(a.Key, Masked)
	case v.Kind() == slog.KindString:
		return slog.String(a.Key, MaskSecrets(v.String()))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
