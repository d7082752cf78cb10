package client

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fieldDocs returns the doc comment of every field of FailoverOptions in
// options.go, keyed by field name, whitespace collapsed.
func fieldDocs(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "options.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatalf("parse options.go: %v", err)
	}
	docs := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "FailoverOptions" {
			return true
		}
		for _, fl := range ts.Type.(*ast.StructType).Fields.List {
			if fl.Doc == nil {
				continue
			}
			text := strings.Join(strings.Fields(fl.Doc.Text()), " ")
			for _, n := range fl.Names {
				docs[n.Name] = text
			}
		}
		return false
	})
	return docs
}

var (
	defaultClaim = regexp.MustCompile(`\(defaults? ([^;)]*)`)
	valueClaim   = regexp.MustCompile(`^(-?\d+)(?: (ms|s|min))?$`)
)

// parseClaim turns "300 ms", "1 min", "3" into a value comparable with the
// field; ok is false for anything else (a field name, prose).
func parseClaim(s string) (int64, bool) {
	m := valueClaim.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0, false
	}
	switch m[2] {
	case "ms":
		n *= int64(time.Millisecond)
	case "s":
		n *= int64(time.Second)
	case "min":
		n *= int64(time.Minute)
	}
	return n, true
}

// TestOptionDocDefaults checks every "(default X)" / "(defaults X / Y)"
// in the FailoverOptions field docs against what withDefaults applies to
// a zero value (issue 11 item 9: the docs said ReadTimeout 3 s and retry
// backoffs 8 ms / 512 ms while the code used go-redis v9.23's 5 s and
// 10 ms / 1 s).
func TestOptionDocDefaults(t *testing.T) {
	docs := fieldDocs(t)
	got := reflect.ValueOf((&FailoverOptions{}).withDefaults())
	typ := got.Type()
	// Fields declared together share one comment: "MinRoleBackoff /
	// MaxRoleBackoff ... (defaults 25 ms / 250 ms)".
	groups := map[string][]string{}
	for i := 0; i < typ.NumField(); i++ {
		name := typ.Field(i).Name
		d, ok := docs[name]
		if !ok {
			continue
		}
		groups[d] = append(groups[d], name)
	}
	checked := 0
	for d, names := range groups {
		m := defaultClaim.FindStringSubmatch(d)
		if m == nil {
			continue
		}
		claim := strings.Split(m[1], ",")[0]
		parts := regexp.MustCompile(` / | and `).Split(claim, -1)
		for i, p := range parts {
			if i >= len(names) {
				break
			}
			want, ok := parseClaim(p)
			if !ok {
				continue
			}
			f := got.FieldByName(names[i])
			var have int64
			switch f.Kind() {
			case reflect.Int, reflect.Int64:
				have = f.Int()
			default:
				t.Errorf("%s: doc claims default %q for a %s field", names[i], p, f.Kind())
				continue
			}
			checked++
			if have != want {
				t.Errorf("%s: doc says default %q, withDefaults gives %v", names[i], strings.TrimSpace(p), f.Interface())
			}
		}
	}
	if checked < 12 {
		t.Errorf("only %d documented defaults found; the parser no longer matches options.go", checked)
	}
}

// TestPackageDocNamesEveryError checks that the package doc (doc.go) and
// docs/client.md's Errors table name every exported error variable.
func TestPackageDocNamesEveryError(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatalf("parse package: %v", err)
	}
	var errs []string
	var pkgDoc string
	for _, p := range pkgs {
		for _, f := range p.Files {
			if f.Doc != nil {
				pkgDoc += f.Doc.Text()
			}
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, s := range gd.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if n.IsExported() && strings.HasPrefix(n.Name, "Err") {
							errs = append(errs, n.Name)
						}
					}
				}
			}
		}
	}
	md, err := os.ReadFile("../docs/client.md")
	if err != nil {
		t.Fatalf("read docs/client.md: %v", err)
	}
	if len(errs) < 13 {
		t.Fatalf("found %d exported errors, want at least 13", len(errs))
	}
	for _, e := range errs {
		if !regexp.MustCompile(`\b` + e + `\b`).MatchString(pkgDoc) {
			t.Errorf("package doc does not name %s", e)
		}
		if !strings.Contains(string(md), "| `"+e+"` |") {
			t.Errorf("docs/client.md Errors table has no row for %s", e)
		}
	}
}

// TestRetryBackoffAsGoRedis checks the documented meaning of
// MinRetryBackoff / MaxRetryBackoff ("as go-redis v9.23"): before the
// first retry the hook waits at least MinRetryBackoff and less than
// 3 × it (go-redis: min + rand(min << 1)); before, it waited between half
// and all of MinRetryBackoff, which no go-redis setting produces.
func TestRetryBackoffAsGoRedis(t *testing.T) {
	lo, hi := 10*time.Millisecond, 80*time.Millisecond
	for retry := 1; retry < 70; retry++ {
		for i := 0; i < 50; i++ {
			d := retryBackoff(retry, lo, hi)
			ceil := lo + lo<<retry
			if lo<<retry < lo || ceil > hi {
				ceil = hi + 1
			}
			if d < lo || d >= ceil {
				t.Fatalf("retryBackoff(%d) = %v, want in [%v, %v)", retry, d, lo, ceil)
			}
		}
	}
	if d := retryBackoff(3, 0, time.Second); d != 0 {
		t.Fatalf("MinRetryBackoff -1 (0 after defaults): backoff %v, want 0 as go-redis", d)
	}

	o := (&FailoverOptions{MinRetryBackoff: 100 * time.Millisecond, MaxRetryBackoff: time.Second}).withDefaults()
	h := hook{newResolver(o, roleMaster)}
	for i := 0; i < 3; i++ {
		start := time.Now()
		if err := h.wait(t.Context(), 0); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < 100*time.Millisecond || took > 600*time.Millisecond {
			t.Fatalf("wait before the first retry took %v, want in [100 ms, 300 ms) as go-redis (+ scheduling)", took)
		}
	}
}

// TestDefaultsTableMatchesCode checks the "Defaults" table of
// docs/client.md against withDefaults: every row whose option is a field
// of FailoverOptions and whose default starts with a number, a duration
// or a boolean ("25 ms / 250 ms" for two fields).
func TestDefaultsTableMatchesCode(t *testing.T) {
	md, err := os.ReadFile("../docs/client.md")
	if err != nil {
		t.Fatalf("read docs/client.md: %v", err)
	}
	text := string(md)
	start := strings.Index(text, "\n## Defaults\n")
	if start < 0 {
		t.Fatal("docs/client.md has no Defaults section")
	}
	section := text[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	got := reflect.ValueOf((&FailoverOptions{}).withDefaults())
	row := regexp.MustCompile("(?m)^\\| ((?:`[A-Za-z]+`(?: / )?)+) \\| ([^|]+) \\|")
	name := regexp.MustCompile("`([A-Za-z]+)`")
	checked := 0
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		names := name.FindAllStringSubmatch(m[1], -1)
		values := strings.Split(m[2], " / ")
		for i, n := range names {
			f := got.FieldByName(n[1])
			if !f.IsValid() || i >= len(values) || n[1] == "DialerRetries" {
				// DialerRetries' 1 is applied in dataOptions (checked
				// by TestDialerRetriesReachGoRedis).
				continue
			}
			v := strings.TrimSpace(values[i])
			if j := strings.Index(v, " ("); j >= 0 {
				v = v[:j]
			}
			switch f.Kind() {
			case reflect.Bool:
				if v != "true" && v != "false" {
					continue
				}
				checked++
				if strconv.FormatBool(f.Bool()) != v {
					t.Errorf("%s: docs/client.md default %q, withDefaults gives %v", n[1], v, f.Bool())
				}
			case reflect.Int, reflect.Int64:
				want, ok := parseClaim(v)
				if !ok {
					continue
				}
				checked++
				if f.Int() != want {
					t.Errorf("%s: docs/client.md default %q, withDefaults gives %v", n[1], v, f.Interface())
				}
			}
		}
	}
	t.Logf("%d defaults checked", checked)
	if checked < 14 {
		t.Errorf("only %d defaults checked in docs/client.md; the table format changed", checked)
	}
}
