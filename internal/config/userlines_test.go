package config

import (
	"strings"
	"testing"
)

// TestUserLinesLoadedVersusLive: a `user default` line read from a file
// starts from "reset" like Redis' ACL loading (so it is written back with
// sanitize-payload, as real Sentinel does after a restart), while users
// handed over by code — the runtime's live ACL LIST descriptions — are
// written as described (real Sentinel's first rewrite of a file without
// user lines writes `user default on nopass ~* &* +@all`; found by
// test/conformance).
func TestUserLinesLoadedVersusLive(t *testing.T) {
	loaded, err := Parse(strings.NewReader("user default on nopass ~* &* +@all\nuser bob on nopass ~* +@all\n"), "sentinel.conf")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		users []User
		want  []string
	}{
		{"loaded from a file", loaded.Server.Users, []string{
			"user bob on nopass ~* resetchannels +@all",
			"user default on nopass sanitize-payload ~* &* +@all",
		}},
		{"live descriptions", []User{
			{Name: "default", Rules: []string{"on", "nopass", "~*", "&*", "+@all"}},
			{Name: "carol", Rules: []string{"on", "nopass", "sanitize-payload", "resetchannels", "-@all"}},
		}, []string{
			"user carol on nopass sanitize-payload resetchannels -@all",
			"user default on nopass ~* &* +@all",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := userLines(&Server{Users: tc.users})
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("userLines:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
