package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCtl runs sentinelctl in-process and returns stdout, stderr and the
// exit status main() would use.
func runCtl(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	code := 0
	var ee exitError
	switch {
	case errors.As(err, &ee):
		code = ee.code
	case err != nil:
		code = 2
	}
	return out.String(), errOut.String(), code
}

func TestConfigCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	realFiles, _ := filepath.Glob("../../internal/config/testdata/real-*.conf")
	if len(realFiles) == 0 {
		t.Fatal("no captured real-sentinel files")
	}
	type checkCase struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr []string // substrings, in order
	}
	cases := []checkCase{
		{name: "minimal", args: []string{write("ok.conf", "sentinel monitor m 127.0.0.1 6379 2\n")}, stdout: "OK\n"},
		{name: "written by real sentinel: peers, epochs", args: []string{"../../internal/config/testdata/real-epochs-and-peers.conf"}, stdout: "OK\n"},
		{name: "written by real sentinel: daemonize, pidfile", args: []string{"../../internal/config/testdata/real-daemonize.conf"}, stdout: "OK\n"},
		{name: "written by real sentinel: users", args: []string{"../../internal/config/testdata/real-users.conf"}, stdout: "OK\n"},
		{name: "unknown directive", args: []string{write("bad.conf", "# c\nport 5000\nfrobnicate yes\n")}, code: 1,
			stderr: []string{"bad.conf:3: Bad directive or wrong number of arguments\n", ">>> 'frobnicate yes'\n"}},
		{name: "quorum 0", args: []string{write("q.conf", "sentinel monitor m 127.0.0.1 6379 2\nsentinel monitor n 127.0.0.1 6380 0\n")}, code: 1,
			stderr: []string{"q.conf:2: Quorum must be 1 or greater.\n", ">>> 'sentinel monitor n 127.0.0.1 6380 0'\n"}},
		{name: "override after --", args: []string{write("o.conf", "port 1\n"), "--", "--sentinel", "monitor", "m", "127.0.0.1", "6379", "0"}, code: 1,
			stderr: []string{"o.conf:3: Quorum must be 1 or greater."}},
		{name: "missing file", args: []string{filepath.Join(dir, "nope.conf")}, code: 1, stderr: []string{"no such file or directory"}},
	}
	for _, f := range realFiles {
		cases = append(cases, checkCase{name: filepath.Base(f), args: []string{f}, stdout: "OK\n"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCtl(t, append([]string{"config", "check"}, tc.args...)...)
			if code != tc.code || out != tc.stdout {
				t.Fatalf("exit %d stdout %q stderr %q; want exit %d stdout %q", code, out, errOut, tc.code, tc.stdout)
			}
			rest := errOut
			for _, s := range tc.stderr {
				i := strings.Index(rest, s)
				if i < 0 {
					t.Fatalf("stderr %q lacks %q", errOut, s)
				}
				rest = rest[i+len(s):]
			}
			if len(tc.stderr) == 0 && errOut != "" {
				t.Errorf("unexpected stderr %q", errOut)
			}
		})
	}
}
