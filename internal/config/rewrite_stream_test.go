package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestRewriteStreamed checks that Rewrite, which streams the new content
// to the file instead of joining it in memory, writes exactly
// RewriteContent's bytes, through a rename and through the in-place
// fallback (EBUSY: the content is generated a second time), for a file
// many times larger than the write buffer and one that shrinks.
func TestRewriteStreamed(t *testing.T) {
	var in strings.Builder
	in.WriteString("# mine\n\n\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&in, "sentinel monitor m%03d-%s 127.0.0.1 %d 2\n", i, strings.Repeat("x", 8000), 7000+i)
		fmt.Fprintf(&in, "sentinel down-after-milliseconds m%03d-%s 1234\n\n\n", i, strings.Repeat("x", 8000))
	}
	// Repeated lines of one directive: the rewrite keeps one and drops
	// the others, so the file shrinks and the in-place path must truncate.
	old := in.String() + strings.Repeat("maxclients 5000\n", 50000)
	for _, ebusy := range []bool{false, true} {
		t.Run(fmt.Sprintf("ebusy=%v", ebusy), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sentinel.conf")
			if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			c.Sentinel.MyID = fixedID
			want := RewriteContent([]byte(old), c)
			if len(want) < 4*32<<10 || len(want) >= len(old) {
				t.Fatalf("new content of %d bytes: want more than the write buffer and less than the old %d", len(want), len(old))
			}
			w := Writer{}
			if ebusy {
				w.Rename = func(o, n string) error { return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EBUSY} }
			}
			if err := w.Rewrite(path, c); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("file (%d bytes) differs from RewriteContent (%d bytes)", len(got), len(want))
			}
			if strings.Contains(string(got), "\n\n\n") {
				t.Errorf("runs of empty lines were not squeezed")
			}
		})
	}
}

// TestNamesShareLineText checks that a long master name read from the file
// is held once: it is a substring of the sentinel line kept for error
// messages, not a second copy (issue: memory with long names).
func TestNamesShareLineText(t *testing.T) {
	name := "m-" + strings.Repeat("x", 8000)
	in := "sentinel monitor " + name + " 127.0.0.1 6379 2\nsentinel monitor \"q r\" 127.0.0.1 6380 2\n"
	c, err := Parse(strings.NewReader(in), "sentinel.conf")
	if err != nil {
		t.Fatal(err)
	}
	m := c.Master(name)
	if m == nil || c.Master("q r") == nil {
		t.Fatalf("masters not loaded: %+v", c.Sentinel.Masters)
	}
	var text string
	for _, s := range c.src {
		if strings.Contains(s.text, name) {
			text = s.text
		}
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(m.Name))), uintptr(unsafe.Pointer(unsafe.StringData(text)))
	if p < lo || p+uintptr(len(m.Name)) > lo+uintptr(len(text)) {
		t.Errorf("master name is a separate copy, not part of its config line")
	}
}
