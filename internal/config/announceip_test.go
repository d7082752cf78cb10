package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnnounceIPSetButEmpty: `SENTINEL CONFIG SET announce-ip ""` leaves
// real Sentinel with an empty, non-NULL announce-ip that its rewrite
// writes as `sentinel announce-ip ""` (conformance F2); loading that line
// ignores it again.
func TestAnnounceIPSetButEmpty(t *testing.T) {
	cases := []struct {
		name string
		ip   string
		set  bool
		want string // expected announce-ip line, "" for none
	}{
		{"never set", "", false, ""},
		{"set to empty", "", true, `sentinel announce-ip ""`},
		{"set", "10.0.0.1", true, `sentinel announce-ip "10.0.0.1"`},
		{"loaded", "10.0.0.1", false, `sentinel announce-ip "10.0.0.1"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sentinel.conf")
			if err := os.WriteFile(path, []byte("port 26379\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			c.Sentinel.AnnounceIP, c.Sentinel.AnnounceIPSet = tc.ip, tc.set
			if err := Rewrite(path, c.Clone()); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for _, l := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(l, "sentinel announce-ip") {
					got = l
				}
			}
			if got != tc.want {
				t.Errorf("announce-ip line %q, want %q", got, tc.want)
			}
			back, err := Load(path)
			if err != nil {
				t.Fatalf("reload: %v", err)
			}
			if back.Sentinel.AnnounceIP != tc.ip || back.Sentinel.AnnounceIPSet {
				t.Errorf("reloaded announce-ip %q set=%v, want %q set=false", back.Sentinel.AnnounceIP, back.Sentinel.AnnounceIPSet, tc.ip)
			}
		})
	}
}
