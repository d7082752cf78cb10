package core

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowedImports is everything the core may import: standard-library
// value packages only. No os, net, sync, time (beyond nothing), io, log.
var allowedImports = map[string]bool{
	"errors":       true,
	"fmt":          true,
	"math/rand/v2": true,
	"net/netip":    true, // pure parsing of IP literals, no I/O
	"sort":         true,
	"strconv":      true,
	"strings":      true,
	// gosentinel's one glob matcher: a leaf package that imports nothing
	// (TestImports checks that too).
	"github.com/gosentinel/gosentinel/internal/glob": true,
}

// TestImports enforces that the core is a pure state machine: only the
// listed standard-library packages, no goroutines, no time.Now.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		checked++
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", f, err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !allowedImports[path] {
				t.Errorf("%s imports %q: core may only import %v", f, path, sortedKeys(allowedImports))
			}
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s: go statement at %s", f, fset.Position(g.Pos()))
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("only %d source files checked", checked)
	}
}
