package client

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestGoRedisProgramCompiles: a program written for go-redis's
// FailoverOptions (testdata/goredisprogram, every field of the go-redis
// version in go.mod set) compiles against go-redis as is, and against this
// package with only the import and the constructor changed
// (redis.NewFailoverClient(&redis.FailoverOptions{…}) →
// client.NewFailoverClient(&client.FailoverOptions{…})). The field list is
// checked against go-redis by reflection, so a go-redis upgrade that adds
// a field fails here until the program (and FailoverOptions) has it.
func TestGoRedisProgramCompiles(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	const path = "testdata/goredisprogram/main.go"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Every exported field of go-redis's FailoverOptions is set.
	f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	set := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		cl, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		if sel, ok := cl.Type.(*ast.SelectorExpr); !ok || sel.Sel.Name != "FailoverOptions" {
			return true
		}
		for _, e := range cl.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					set[id.Name] = true
				}
			}
		}
		return true
	})
	rt := reflect.TypeOf(redis.FailoverOptions{})
	for i := 0; i < rt.NumField(); i++ {
		if fl := rt.Field(i); fl.IsExported() && !set[fl.Name] {
			t.Errorf("%s does not set go-redis's FailoverOptions.%s", path, fl.Name)
		}
	}
	// Only the import and the constructor change.
	ours := strings.Replace(string(src), "\"github.com/redis/go-redis/v9\"\n",
		"\"github.com/redis/go-redis/v9\"\n\t\"github.com/gosentinel/gosentinel/client\"\n", 1)
	ours = strings.ReplaceAll(ours, "redis.FailoverOptions", "client.FailoverOptions")
	ours = strings.ReplaceAll(ours, "redis.NewFailoverClient", "client.NewFailoverClient")
	changed := 0
	a, b := strings.Split(string(src), "\n"), strings.Split(ours, "\n")
	for i, j := 0, 0; i < len(a) && j < len(b); i, j = i+1, j+1 {
		if a[i] != b[j] {
			changed++
			if strings.Contains(b[j], "gosentinel/client") {
				i-- // the added import line
			}
		}
	}
	if changed != 4 { // import, options() result type, literal, constructor
		t.Fatalf("%d lines changed for our client, want 4 (import, options type ×2, constructor)", changed)
	}
	dir := t.TempDir()
	for name, code := range map[string]string{"goredis": string(src), "ours": ours} {
		p := filepath.Join(dir, name, "main.go")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
		// Built from this package's directory: the module's go.mod (and
		// its go-redis version) resolves the imports.
		out, err := exec.Command("go", "build", "-o", os.DevNull, p).CombinedOutput()
		if err != nil {
			t.Errorf("the go-redis program does not compile (%s):\n%s", name, out)
		}
	}
}
