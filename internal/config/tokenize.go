package config

import (
	"errors"
	"strings"
)

// ErrUnbalancedQuotes is returned by SplitArgs for a line whose quotes do
// not balance, or whose closing quote is not followed by a space or the end
// of the line.
var ErrUnbalancedQuotes = errors.New("Unbalanced quotes in configuration line")

// isSpace reports whether c is a C isspace() character.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// SplitArgs splits a line into arguments like Redis' sdssplitargs: words
// separated by spaces, "double quotes" with the escapes \n \r \t \b \a \\ \"
// and \xHH, 'single quotes' where only \' is an escape. A closing quote must
// be followed by a space or the end of the line. As in C, the line ends at
// the first NUL byte.
func SplitArgs(line string) ([]string, error) {
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	var args []string
	p := 0
	n := len(line)
	at := func(i int) byte {
		if i < n {
			return line[i]
		}
		return 0
	}
	for {
		for p < n && isSpace(line[p]) {
			p++
		}
		if p >= n {
			return args, nil
		}
		var cur []byte
		inq, insq, done := false, false, false
		for !done {
			c := at(p)
			switch {
			case inq:
				switch {
				case c == '\\' && at(p+1) == 'x' && isHex(at(p+2)) && isHex(at(p+3)):
					cur = append(cur, hexVal(at(p+2))*16+hexVal(at(p+3)))
					p += 3
				case c == '\\' && at(p+1) != 0:
					p++
					e := line[p]
					switch e {
					case 'n':
						e = '\n'
					case 'r':
						e = '\r'
					case 't':
						e = '\t'
					case 'b':
						e = '\b'
					case 'a':
						e = '\a'
					}
					cur = append(cur, e)
				case c == '"':
					if at(p+1) != 0 && !isSpace(at(p+1)) {
						return nil, ErrUnbalancedQuotes
					}
					done = true
				case c == 0:
					return nil, ErrUnbalancedQuotes
				default:
					cur = append(cur, c)
				}
			case insq:
				switch {
				case c == '\\' && at(p+1) == '\'':
					p++
					cur = append(cur, '\'')
				case c == '\'':
					if at(p+1) != 0 && !isSpace(at(p+1)) {
						return nil, ErrUnbalancedQuotes
					}
					done = true
				case c == 0:
					return nil, ErrUnbalancedQuotes
				default:
					cur = append(cur, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					cur = append(cur, c)
				}
			}
			if p < n {
				p++
			}
		}
		args = append(args, string(cur))
	}
}

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
