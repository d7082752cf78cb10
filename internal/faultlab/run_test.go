package faultlab

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAbsBin: a relative --gosentinel-bin is made absolute against the
// working directory (the sentinels start in their host's directory).
func TestAbsBin(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"":                 "",
		"/usr/bin/x":       "/usr/bin/x",
		"bin/gosentinel":   filepath.Join(wd, "bin/gosentinel"),
		"./bin/gosentinel": filepath.Join(wd, "bin/gosentinel"),
	} {
		got, err := absBin(in)
		if err != nil || got != want {
			t.Errorf("absBin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
