package core

// stringMatch is Redis' glob matcher (stringmatchlen): *, ?, [...] with
// ranges and ^ negation, and \ escapes. It never panics.
func stringMatch(pattern, str string, nocase bool) bool {
	return matchAt(pattern, str, nocase, 0)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func matchAt(p, s string, nocase bool, depth int) bool {
	if depth > 1000 {
		return false
	}
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for k := 0; k <= len(s); k++ {
				if matchAt(p[1:], s[k:], nocase, depth+1) {
					return true
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
			found := false
			for len(p) > 0 && p[0] != ']' {
				switch {
				case p[0] == '\\' && len(p) >= 2:
					if p[1] == s[0] {
						found = true
					}
					p = p[2:]
				case len(p) >= 3 && p[1] == '-':
					lo, hi, c := p[0], p[2], s[0]
					if lo > hi {
						lo, hi = hi, lo
					}
					if nocase {
						lo, hi, c = lower(lo), lower(hi), lower(c)
					}
					if c >= lo && c <= hi {
						found = true
					}
					p = p[3:]
				default:
					if p[0] == s[0] || (nocase && lower(p[0]) == lower(s[0])) {
						found = true
					}
					p = p[1:]
				}
			}
			if len(p) > 0 {
				p = p[1:] // skip ']'
			}
			if found == not {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if len(s) == 0 {
				return false
			}
			if p[0] != s[0] && !(nocase && lower(p[0]) == lower(s[0])) {
				return false
			}
			s = s[1:]
			p = p[1:]
		}
	}
	return len(s) == 0
}
