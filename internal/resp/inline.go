package resp

// SplitArgs splits a line into arguments exactly like Redis' sdssplitargs,
// used for inline commands and configuration lines: arguments are separated
// by white space; "double quotes" support \n \r \t \b \a \xHH and \<char>
// escapes; 'single quotes' support only \'; a closing quote must be followed
// by white space or the end of the line. It returns an error wrapping
// ErrProtocol ("unbalanced quotes in request") when quotes do not balance.
func SplitArgs(line []byte) ([][]byte, error) {
	buf, offs, err := splitArgs(line, nil, nil)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(offs))
	for i, a := range offs {
		b := len(buf)
		if i+1 < len(offs) {
			b = offs[i+1]
		}
		out[i] = buf[a:b:b]
	}
	return out, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'
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

// splitArgs appends the arguments of line to buf, recording the start
// offset of each in offs.
func splitArgs(line, buf []byte, offs []int) ([]byte, []int, error) {
	p := 0
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p >= len(line) {
			return buf, offs, nil
		}
		offs = append(offs, len(buf))
		inq, insq, done := false, false, false
		for !done {
			switch {
			case inq:
				if p >= len(line) {
					return buf, offs, errUnbalancedQuotes
				}
				c := line[p]
				switch {
				case c == '\\' && p+3 < len(line) && line[p+1] == 'x' && isHex(line[p+2]) && isHex(line[p+3]):
					buf = append(buf, hexVal(line[p+2])<<4|hexVal(line[p+3]))
					p += 3
				case c == '\\' && p+1 < len(line):
					p++
					switch line[p] {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					default:
						c = line[p]
					}
					buf = append(buf, c)
				case c == '"':
					// The closing quote must be followed by a space or the end.
					if p+1 < len(line) && !isSpace(line[p+1]) {
						return buf, offs, errUnbalancedQuotes
					}
					done = true
				default:
					buf = append(buf, c)
				}
			case insq:
				if p >= len(line) {
					return buf, offs, errUnbalancedQuotes
				}
				c := line[p]
				switch {
				case c == '\\' && p+1 < len(line) && line[p+1] == '\'':
					p++
					buf = append(buf, '\'')
				case c == '\'':
					if p+1 < len(line) && !isSpace(line[p+1]) {
						return buf, offs, errUnbalancedQuotes
					}
					done = true
				default:
					buf = append(buf, c)
				}
			default:
				if p >= len(line) {
					done = true
					break
				}
				switch c := line[p]; {
				case isSpace(c):
					done = true
				case c == '"':
					inq = true
				case c == '\'':
					insq = true
				default:
					buf = append(buf, c)
				}
			}
			if p < len(line) {
				p++
			}
		}
	}
}
