package glob

// MaxNesting is the deepest '*' recursion that can still match (Redis'
// "nesting > 1000" guard in stringmatchlen_impl).
const MaxNesting = 1000

// Match reports whether str matches pattern exactly as Redis'
// stringmatchlen(pattern, str, nocase) does. It never panics and its work is
// bounded by O(len(pattern) × len(str)).
func Match(pattern, str string, nocase bool) bool {
	skip := false
	return match(pattern, str, nocase, &skip, 0)
}

// at is pattern[i], or 0 past the end (the C code reads the terminating NUL
// of the sds string there).
func at(p string, i int) byte {
	if i >= 0 && i < len(p) {
		return p[i]
	}
	return 0
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func eq(a, b byte, nocase bool) bool {
	return a == b || (nocase && lower(a) == lower(b))
}

// match is stringmatchlen_impl. pi and si index the pattern and the string;
// the C code's pointer/length pairs are (pattern+pi, len(p)-pi).
func match(p, s string, nocase bool, skipLonger *bool, nesting int) bool {
	if nesting > MaxNesting {
		return false
	}
	pi, si := 0, 0
	for pi < len(p) && si < len(s) {
		switch p[pi] {
		case '*':
			for pi < len(p) && at(p, pi+1) == '*' {
				pi++
			}
			if len(p)-pi == 1 {
				return true
			}
			for si < len(s) {
				if match(p[pi+1:], s[si:], nocase, skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
				si++
			}
			// The rest of the pattern matches nowhere in the rest of the
			// string: a longer match for an earlier '*' cannot help.
			*skipLonger = true
			return false
		case '?':
			si++
		case '[':
			pi++
			not := at(p, pi) == '^'
			if not {
				pi++
			}
			matched := false
		class:
			for {
				switch {
				case at(p, pi) == '\\' && len(p)-pi >= 2:
					pi++
					if p[pi] == s[si] {
						matched = true
					}
				case at(p, pi) == ']':
					break class
				case pi == len(p):
					pi-- // unterminated class: stop on its last byte
					break class
				case len(p)-pi >= 3 && p[pi+1] == '-':
					lo, hi, c := p[pi], p[pi+2], s[si]
					if lo > hi {
						lo, hi = hi, lo
					}
					if nocase {
						lo, hi, c = lower(lo), lower(hi), lower(c)
					}
					pi += 2
					if c >= lo && c <= hi {
						matched = true
					}
				default:
					if eq(p[pi], s[si], nocase) {
						matched = true
					}
				}
				pi++
			}
			if not {
				matched = !matched
			}
			if !matched {
				return false
			}
			si++
		case '\\':
			if len(p)-pi >= 2 {
				pi++
			}
			if !eq(p[pi], s[si], nocase) {
				return false
			}
			si++
		default:
			if !eq(p[pi], s[si], nocase) {
				return false
			}
			si++
		}
		pi++
		if si == len(s) {
			for at(p, pi) == '*' {
				pi++
			}
			break
		}
	}
	return pi == len(p) && si == len(s)
}
