package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestStartupRefusals: configurations real redis-sentinel refuses at start
// (after loading the file) make gosentinel log Redis' line on stdout and
// exit 1, with stderr empty.
func TestStartupRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bad.acl", "user a on\nbad\n")
	write("port0.conf", "port 0\nbind 127.0.0.1\nsentinel monitor mym 127.0.0.1 6379 1\n")
	write("badacl.conf", "port 0\nbind 127.0.0.1\naclfile bad.acl\n")
	write("both.conf", "port 0\nbind 127.0.0.1\naclfile bad.acl\nuser x on\n")
	tests := []struct {
		conf, stdout string // stdout regexp
	}{
		{"port0.conf", `# Configured to not listen anywhere, exiting\.\n$`},
		{"badacl.conf", `# Aborting Redis startup because of ACL errors: .*bad\.acl:2 should start with user keyword followed by the username\. WARNING: ACL errors detected, no change to the previously active ACL rules was performed\n$`},
		{"both.conf", `# Configuring Redis with users defined in redis\.conf and at the same setting an ACL file path is invalid\..*but not both\.\n$`},
	}
	for _, tc := range tests {
		t.Run(tc.conf, func(t *testing.T) {
			code, out, errs := runBin(t, dir, tc.conf)
			if code != 1 || errs != "" {
				t.Errorf("exit %d, stderr %q; want 1 and empty", code, errs)
			}
			if !regexp.MustCompile(tc.stdout).MatchString(out) {
				t.Errorf("stdout %q does not match %q", out, tc.stdout)
			}
		})
	}
}
