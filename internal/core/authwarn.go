package core

import "strings"

// maxAuthErrLen bounds the server's error text copied into the log line
// (it comes from the network).
const maxAuthErrLen = 128

// onAuthReply logs a refused AUTH of a connection to instance i (a wrong
// sentinel auth-user/auth-pass, sentinel-user/sentinel-pass or
// requirepass), once until an AUTH on the link is accepted again.
//
// sentinel.c discards the reply (sentinelDiscardReplyCallback): the only
// sign of a wrong password is the instance going subjectively down, its
// PINGs answered -NOAUTH. The log line is not an event, so what
// subscribers and scripts see is unchanged (docs/decisions.md 44).
func (s *Sentinel) onAuthReply(i *instance, l *instanceLink, v Value) {
	if v.Kind != KindError {
		l.authWarned = false
		return
	}
	if l.authWarned {
		return
	}
	l.authWarned = true
	msg := v.Str
	if len(msg) > maxAuthErrLen {
		msg = msg[:maxAuthErrLen] + "..."
	}
	msg = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, msg)
	what := "sentinel auth-user/auth-pass"
	if i.isSentinel() {
		what = "sentinel sentinel-user/sentinel-pass (or requirepass)"
	}
	s.logf(LevelWarning, "Failed to authenticate to %s: %s (check %s)", s.subject(i), msg, what)
}
