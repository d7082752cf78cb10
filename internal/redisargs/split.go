package redisargs

import "errors"

// ErrUnbalancedQuotes is returned when quotes do not balance, or when a
// closing quote is not followed by white space or the end of the line.
// Callers translate it into their own error (a configuration error, a
// protocol error).
var ErrUnbalancedQuotes = errors.New("unbalanced quotes")

// IsSpace reports whether c is a C isspace() character in the "C" locale.
func IsSpace(c byte) bool {
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

// unescape returns the byte that \e stands for inside double quotes.
func unescape(e byte) byte {
	switch e {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return e
}

// Split returns the arguments of line as strings; see Append for the rules.
func Split(line string) ([]string, error) {
	buf, offs, err := Append(line, nil, nil)
	if err != nil {
		return nil, err
	}
	if len(offs) == 0 {
		return nil, nil
	}
	out := make([]string, len(offs))
	s := string(buf)
	for i, a := range offs {
		b := len(s)
		if i+1 < len(offs) {
			b = offs[i+1]
		}
		out[i] = s[a:b]
	}
	return out, nil
}

// Append splits line into arguments like sdssplitargs and appends the bytes
// of every argument to buf, recording the offset in buf where each one
// starts in offs; argument i is buf[offs[i]:offs[i+1]] (the last one ends
// at len(buf)). Reusing buf and offs lets a reader split without
// allocating.
//
// The rules are those of Redis 7.0: leading white space (isspace) is
// skipped; an unquoted argument ends at ' ', '\t', '\n', '\r' (not at '\v'
// or '\f', which stay part of it); "double quotes" understand \xHH, \n, \r,
// \t, \b, \a and \<any byte>; 'single quotes' only \'; quotes may start in
// the middle of an argument (a"b c" is `ab c`); a closing quote must be
// followed by white space or the end of the line; as in C, the line ends at
// its first NUL byte. On error it returns ErrUnbalancedQuotes, and buf and
// offs hold a partial result.
func Append[T string | []byte](line T, buf []byte, offs []int) ([]byte, []int, error) {
	n := len(line)
	for i := 0; i < n; i++ {
		if line[i] == 0 {
			n = i
			break
		}
	}
	// at returns the byte at i, or NUL past the end (the C terminator).
	at := func(i int) byte {
		if i < n {
			return line[i]
		}
		return 0
	}
	p := 0
	for {
		for p < n && IsSpace(line[p]) {
			p++
		}
		if p >= n {
			return buf, offs, nil
		}
		offs = append(offs, len(buf))
		var quote byte // the open quote, '"' or '\'', or 0 outside quotes
		for done := false; !done; {
			c := at(p)
			switch {
			case quote == 0:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"', '\'':
					quote = c
				default:
					buf = append(buf, c)
				}
			case quote == '"' && c == '\\' && at(p+1) == 'x' && isHex(at(p+2)) && isHex(at(p+3)):
				buf = append(buf, hexVal(at(p+2))<<4|hexVal(at(p+3)))
				p += 3
			case quote == '"' && c == '\\' && at(p+1) != 0:
				p++
				buf = append(buf, unescape(line[p]))
			case quote == '\'' && c == '\\' && at(p+1) == '\'':
				p++
				buf = append(buf, '\'')
			case c == quote:
				// The closing quote must be followed by a space or the end.
				if at(p+1) != 0 && !IsSpace(at(p+1)) {
					return buf, offs, ErrUnbalancedQuotes
				}
				done = true
			case c == 0:
				return buf, offs, ErrUnbalancedQuotes
			default:
				buf = append(buf, c)
			}
			if p < n {
				p++
			}
		}
	}
}
