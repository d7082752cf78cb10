package architecture

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gosentinel/gosentinel"

// repoRoot is the module root, two directories up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	return root
}

// realGraph parses every Go file of the module and returns, per package
// directory (module-relative, "client", "internal/core"), the set of module
// packages it imports. A package with code besides doc.go counts only its
// non-test files; a package of tests (test/interop, bench/clientbench)
// counts its test files.
func realGraph(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	type files struct{ src, tests []string }
	dirs := map[string]*files{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		f := dirs[rel]
		if f == nil {
			f = &files{}
			dirs[rel] = f
		}
		if strings.HasSuffix(name, "_test.go") {
			f.tests = append(f.tests, path)
		} else if name != "doc.go" {
			f.src = append(f.src, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	graph := map[string]map[string]bool{}
	fset := token.NewFileSet()
	for dir, f := range dirs {
		list := f.src
		if len(list) == 0 {
			list = f.tests
		}
		imps := map[string]bool{}
		for _, path := range list {
			af, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatalf("parse %s: %v", path, err)
			}
			for _, is := range af.Imports {
				p, _ := strconv.Unquote(is.Path.Value)
				if rest, ok := strings.CutPrefix(p, module+"/"); ok && rest != dir {
					imps[rest] = true
				}
			}
		}
		graph[dir] = imps
	}
	return graph
}

var backticked = regexp.MustCompile("`([^`]+)`")

// docTable reads the package table of docs/architecture.md: the first
// column names the package, the third lists the module packages it imports
// in backticks (other text, such as "go-redis", is for the reader).
func docTable(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	fh, err := os.Open(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	table := map[string]map[string]bool{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 5 {
			t.Fatalf("docs/architecture.md: table row with fewer than 3 columns: %q", line)
		}
		m := backticked.FindStringSubmatch(cells[1])
		if m == nil {
			continue
		}
		pkg := m[1]
		imps := map[string]bool{}
		for _, mm := range backticked.FindAllStringSubmatch(cells[3], -1) {
			imps[mm[1]] = true
		}
		if _, dup := table[pkg]; dup {
			t.Errorf("docs/architecture.md: %s listed twice", pkg)
		}
		table[pkg] = imps
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return table
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestArchitectureTableMatchesImports fails when docs/architecture.md lists
// a package that does not exist, misses one that does, or names imports
// other than the real ones. The message says which row to fix.
func TestArchitectureTableMatchesImports(t *testing.T) {
	root := repoRoot(t)
	real := realGraph(t, root)
	doc := docTable(t, root)
	for _, pkg := range keys(boolSet(real)) {
		want := real[pkg]
		got, ok := doc[pkg]
		if !ok {
			t.Errorf("docs/architecture.md: package `%s` is missing from the table (it imports %v)", pkg, keys(want))
			continue
		}
		if strings.Join(keys(got), " ") != strings.Join(keys(want), " ") {
			t.Errorf("docs/architecture.md: `%s` lists imports %v, the code imports %v", pkg, keys(got), keys(want))
		}
	}
	for _, pkg := range keys(boolSet(doc)) {
		if _, ok := real[pkg]; !ok {
			t.Errorf("docs/architecture.md: `%s` is in the table but is not a package of the module", pkg)
		}
	}
}

// TestNoImportCycleTowardsCore checks the one-way rule the page states:
// nothing the core imports may import anything but the standard library.
func TestNoImportCycleTowardsCore(t *testing.T) {
	real := realGraph(t, repoRoot(t))
	for imp := range real["internal/core"] {
		if len(real[imp]) != 0 {
			t.Errorf("internal/core imports %s, which imports %v: the core's imports must be leaves", imp, keys(real[imp]))
		}
	}
}

func boolSet[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
