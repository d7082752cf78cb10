package glob

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
	"time"
)

// cases were checked against redis-server 7.0.15 (KEYS on a one-key
// database; TestMatchRealRedis replays them).
var cases = []struct {
	pat, s string
	nocase bool
	want   bool
}{
	{"*", "anything", false, true},
	{"*", "", false, false}, // stringmatchlen: a non-empty pattern never matches ""
	{"**", "", false, false},
	{"", "", false, true},
	{"", "a", false, false},
	{"a", "", false, false},
	{"+*", "+sdown", false, true},
	{"+*", "-sdown", false, false},
	{"my*", "mymaster", false, true},
	{"my*", "MYmaster", false, false},
	{"my*", "MYmaster", true, true},
	{"h?llo", "hello", false, true},
	{"h?llo", "hllo", false, false},
	{"h[ae]llo", "hallo", false, true},
	{"h[^e]llo", "hello", false, false},
	{"h[^a-c]llo", "hdllo", false, true},
	{"h[a-c]llo", "hbllo", false, true},
	{"h[c-a]llo", "hbllo", false, true},
	{"h[A-C]llo", "hbllo", true, true},
	{"h\\*llo", "h*llo", false, true},
	{"h\\*llo", "hello", false, false},
	{"a*b*c", "aXXbYYc", false, true},
	{"a*b*c", "aXXbYY", false, false},
	{"a**", "a", false, true},
	{"a*?", "a", false, false},
	{"*a*", "a", false, true},
	{"[", "a", false, false},
	{"[", "[", false, false},
	{"[[]", "[", false, true},
	{"[]", "a", false, false},
	{"[^", "x", false, true},
	{"[abc", "b", false, true},
	{"[a-]", "]", false, true},
	{"a[\\]", "a\\", false, false},
	{"a\\", "a\\", false, true},
	{"\\", "\\", false, true},
	{"[\\A]", "a", true, false}, // an escaped byte in a class is case-sensitive, as in Redis
	{"\\A", "a", true, true},
	{strings.Repeat("*a", 30) + "b", strings.Repeat("a", 60), false, false},
	{strings.Repeat("*a", 1000), strings.Repeat("a", 1500), false, true},
	{strings.Repeat("*a", 1001), strings.Repeat("a", 1500), false, false}, // CVE-2024-31228 depth bound
}

func TestMatch(t *testing.T) {
	for _, tc := range cases {
		if got := Match(tc.pat, tc.s, tc.nocase); got != tc.want {
			t.Errorf("Match(%q, %q, %v) = %v, want %v", short(tc.pat), short(tc.s), tc.nocase, got, tc.want)
		}
	}
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// TestMatchWorkBound: the pattern that froze SENTINEL RESET (exponential
// in an unbounded matcher: about 2^12 × 40^k steps) is answered at once,
// and so are the worst shapes at the largest sizes a client can send.
// Matching is O(len(pattern) × len(str)), so these take microseconds to a
// few milliseconds; an exponential matcher would never finish.
func TestMatchWorkBound(t *testing.T) {
	hostile := []struct{ pat, s string }{
		{"*a*a*a*a*a*a*a*a*a*a*a*a*b", strings.Repeat("a", 40)},
		{strings.Repeat("*a", 5000) + "b", strings.Repeat("a", 5000)},
		{strings.Repeat("a*", 20) + "b", strings.Repeat("a", 100000)},
		{strings.Repeat("*?", 999) + "x", strings.Repeat("a", 10000)},
		{strings.Repeat("[a-z]*", 500) + "!", strings.Repeat("q", 5000)},
	}
	for _, h := range hostile {
		start := time.Now()
		got := Match(h.pat, h.s, false)
		if got {
			t.Errorf("Match(%q, %q) = true", short(h.pat), short(h.s))
		}
		// Not a timing assertion on speed: a regression to exponential work
		// does not finish at all; the test binary's timeout catches it.
		t.Logf("%q vs %d bytes: %v", short(h.pat), len(h.s), time.Since(start))
	}
}

// TestReferenceModel checks the fuzz target's reference model on the table,
// so that the differential fuzzing compares against something right.
func TestReferenceModel(t *testing.T) {
	for _, tc := range cases {
		if strings.Count(tc.pat, "*") > 8 {
			continue // the model is exponential; the depth bound is Match's own
		}
		if got := refMatch(tc.pat, tc.s, tc.nocase); got != tc.want {
			t.Errorf("refMatch(%q, %q, %v) = %v, want %v", tc.pat, tc.s, tc.nocase, got, tc.want)
		}
	}
}

// FuzzMatch is the differential fuzz target: Match against the exponential
// reference model on short inputs (the model has no bound, so inputs are
// kept small enough for it to finish).
func FuzzMatch(f *testing.F) {
	for _, tc := range cases {
		if len(tc.pat) <= 24 && len(tc.s) <= 24 {
			f.Add(tc.pat, tc.s, tc.nocase)
		}
	}
	f.Add("h[a-c]*?\\x", "hbzzzq\\x", false)
	f.Fuzz(func(t *testing.T, pat, s string, nocase bool) {
		if len(pat) > 24 || len(s) > 24 || strings.Count(pat, "*") > 8 {
			return
		}
		if got, want := Match(pat, s, nocase), refMatch(pat, s, nocase); got != want {
			t.Fatalf("Match(%q, %q, %v) = %v, reference says %v", pat, s, nocase, got, want)
		}
	})
}

// TestLeaf: the package imports nothing, so the pure core may use it
// (internal/core/imports_test.go allows it for that reason).
func TestLeaf(t *testing.T) {
	fset := token.NewFileSet()
	for _, f := range []string{"doc.go", "glob.go"} {
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			t.Errorf("%s imports %s: internal/glob must import nothing", f, imp.Path.Value)
		}
	}
}
