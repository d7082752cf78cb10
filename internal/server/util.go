package server

import "strconv"

// parseInt parses like Redis' string2ll: optional '-', digits, no '+',
// no spaces, no leading zeros, within int64.
func parseInt(s string) (int64, bool) {
	if s == "" || len(s) > 20 || s[0] == '+' || (len(s) > 1 && s[0] == '0') ||
		(len(s) > 2 && s[0] == '-' && s[1] == '0') || s == "-0" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
