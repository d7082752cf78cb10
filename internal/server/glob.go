package server

// globMatch reports whether str matches the glob pattern like Redis'
// stringmatchlen: '*', '?', '[...]' with ranges and '^' negation, and '\'
// escapes (and, like Redis, a non-empty pattern never matches ""). Recursion on '*' is bounded by collapsing consecutive stars and
// by an iteration budget, so hostile patterns cannot take exponential time.
func globMatch(pattern, str []byte, nocase bool) bool {
	budget := 1 << 16
	return globMatchImpl(pattern, str, nocase, &budget)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func globMatchImpl(p, s []byte, nocase bool, budget *int) bool {
	for len(p) > 0 && len(s) > 0 {
		*budget--
		if *budget <= 0 {
			return false
		}
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for i := 0; i < len(s); i++ {
				if globMatchImpl(p[1:], s[i:], nocase, budget) {
					return true
				}
				if *budget <= 0 {
					return false
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			s = s[1:]
			p = p[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			match := false
			for {
				if len(p) == 0 {
					break
				}
				if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						match = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					start, end := p[0], p[2]
					if start > end {
						start, end = end, start
					}
					c := s[0]
					if nocase {
						start, end, c = lower(start), lower(end), lower(c)
					}
					p = p[2:]
					if c >= start && c <= end {
						match = true
					}
				} else if eqByte(p[0], s[0], nocase) {
					match = true
				}
				p = p[1:]
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s = s[1:]
			if len(p) > 0 {
				p = p[1:] // the closing ']'
			}
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if len(s) == 0 || !eqByte(p[0], s[0], nocase) {
				return false
			}
			s = s[1:]
			p = p[1:]
		}
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			return len(p) == 0
		}
	}
	return len(p) == 0 && len(s) == 0
}

func eqByte(a, b byte, nocase bool) bool {
	if nocase {
		return lower(a) == lower(b)
	}
	return a == b
}
