package config

import (
	"errors"
	"strings"

	"github.com/gosentinel/gosentinel/internal/redisargs"
)

// ErrUnbalancedQuotes is returned by SplitArgs for a line whose quotes do
// not balance, or whose closing quote is not followed by a space or the end
// of the line.
var ErrUnbalancedQuotes = errors.New("Unbalanced quotes in configuration line")

// SplitArgs splits a line into arguments like Redis' sdssplitargs: words
// separated by spaces, "double quotes" with the escapes \n \r \t \b \a \\ \"
// and \xHH, 'single quotes' where only \' is an escape. A closing quote must
// be followed by a space or the end of the line. As in C, the line ends at
// the first NUL byte. The rules live in internal/redisargs, shared with the
// inline-command reader of internal/resp.
func SplitArgs(line string) ([]string, error) {
	args, err := redisargs.Split(line)
	if err != nil {
		return nil, ErrUnbalancedQuotes
	}
	return args, nil
}

// isSpace reports whether c is a C isspace() character.
func isSpace(c byte) bool { return redisargs.IsSpace(c) }

// Quote returns s as a double-quoted string the way Redis' sdscatrepr does:
// \\ \" \n \r \t \a \b escaped, other non-printable bytes as \xHH.
// SplitArgs(Quote(s)) returns s.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c >= 0x20 && c <= 0x7e {
				b.WriteByte(c)
			} else {
				const hexd = "0123456789abcdef"
				b.WriteString(`\x`)
				b.WriteByte(hexd[c>>4])
				b.WriteByte(hexd[c&15])
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// QuoteIfNeeded returns s unchanged when it reads back as one argument
// identical to s, and Quote(s) otherwise (empty, spaces, quotes, control
// bytes).
func QuoteIfNeeded(s string) string {
	if s == "" {
		return Quote(s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f || c == '"' || c == '\'' {
			return Quote(s)
		}
	}
	return s
}
