package glob

// refMatch is the reference model of stringmatchlen for the differential
// fuzz target: the pattern is first cut into tokens, then matched by plain
// exponential backtracking with no work or depth bound. It shares no code
// with Match, and is only used on short inputs.
func refMatch(pattern, str string, nocase bool) bool {
	toks := tokenize(pattern)
	if str == "" {
		// stringmatchlen's loop never runs on an empty string: only the
		// empty pattern matches it.
		return len(toks) == 0
	}
	return refRec(toks, str, nocase)
}

type tokKind int

const (
	tokLit tokKind = iota
	tokAny
	tokStar
	tokClass
)

type classItem struct {
	lo, hi byte
	exact  bool // escaped byte: compared case-sensitively
}

type tok struct {
	kind  tokKind
	lit   byte
	not   bool
	items []classItem
}

func tokenize(p string) []tok {
	var out []tok
	for i := 0; i < len(p); {
		switch p[i] {
		case '*':
			out = append(out, tok{kind: tokStar})
			i++
		case '?':
			out = append(out, tok{kind: tokAny})
			i++
		case '\\':
			if i+1 < len(p) {
				out = append(out, tok{kind: tokLit, lit: p[i+1]})
				i += 2
			} else {
				out = append(out, tok{kind: tokLit, lit: '\\'})
				i++
			}
		case '[':
			i++
			t := tok{kind: tokClass}
			if i < len(p) && p[i] == '^' {
				t.not = true
				i++
			}
			for i < len(p) {
				if p[i] == '\\' && i+1 < len(p) {
					t.items = append(t.items, classItem{lo: p[i+1], hi: p[i+1], exact: true})
					i += 2
				} else if p[i] == ']' {
					i++
					break
				} else if i+2 < len(p) && p[i+1] == '-' {
					lo, hi := p[i], p[i+2]
					if lo > hi {
						lo, hi = hi, lo
					}
					t.items = append(t.items, classItem{lo: lo, hi: hi})
					i += 3
				} else {
					t.items = append(t.items, classItem{lo: p[i], hi: p[i]})
					i++
				}
			}
			out = append(out, t)
		default:
			out = append(out, tok{kind: tokLit, lit: p[i]})
			i++
		}
	}
	return out
}

func fold(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c - 'A' + 'a'
	}
	return c
}

func (t tok) accepts(c byte, nocase bool) bool {
	switch t.kind {
	case tokAny:
		return true
	case tokLit:
		return c == t.lit || (nocase && fold(c) == fold(t.lit))
	}
	in := false
	for _, it := range t.items {
		switch {
		case it.exact:
			in = in || c == it.lo
		case it.lo == it.hi:
			in = in || c == it.lo || (nocase && fold(c) == fold(it.lo))
		case nocase:
			in = in || (fold(c) >= fold(it.lo) && fold(c) <= fold(it.hi))
		default:
			in = in || (c >= it.lo && c <= it.hi)
		}
	}
	return in != t.not
}

func refRec(toks []tok, s string, nocase bool) bool {
	if len(toks) == 0 {
		return s == ""
	}
	if toks[0].kind == tokStar {
		for k := 0; k <= len(s); k++ {
			if refRec(toks[1:], s[k:], nocase) {
				return true
			}
		}
		return false
	}
	return s != "" && toks[0].accepts(s[0], nocase) && refRec(toks[1:], s[1:], nocase)
}
