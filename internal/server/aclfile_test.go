package server

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestACLFileLoadErrors compares the error texts with what a real
// redis-sentinel 7.0.15 answered to ACL LOAD for the same files.
func TestACLFileLoadErrors(t *testing.T) {
	const tail = "WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	dir := t.TempDir()
	path := filepath.Join(dir, "users.acl")
	tests := []struct {
		name, body, want string
	}{
		{"several", "user bob on >pw +ping\nfoo bar\nuser x on +nosuch\nuser bob on\n",
			path + ":2 should start with user keyword followed by the username. " +
				path + ":3: Error in applying operation '+nosuch': Unknown command or category name in ACL. " +
				"WARNING: Duplicate user 'bob' found on line 4. " + tail},
		{"duplicate", "user bob on >pw +ping\nuser bob off\n", "WARNING: Duplicate user 'bob' found on line 2. " + tail},
		{"double spaces", "\n  user  bob  on >pw +ping  \n", path + ":2: Syntax error. " + tail},
		{"first syntax error only", "user a on bad1 bad2 +nosuch\n",
			path + ":1: Syntax error. " + path + ":1: Error in applying operation '+nosuch': Unknown command or category name in ACL. " + tail},
		{"missing", "", "Error loading ACLs, opening file '" + path + "': No such file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(path)
			if tc.body != "" {
				if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			a := newACL(mustTable(t))
			_, err := a.loadACLFile(path)
			if !errors.Is(err, ErrACLFile) {
				t.Fatalf("error %v does not wrap ErrACLFile", err)
			}
			if err.Error() != tc.want {
				t.Fatalf("error\n got: %q\nwant: %q", err, tc.want)
			}
			if len(a.users) != 1 || a.users["default"] == nil {
				t.Fatalf("users changed by a failed load: %v", sortedUsers(a))
			}
		})
	}
}

func mustTable(t *testing.T) *table {
	t.Helper()
	tab, err := loadTable()
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestACLFileStartLoadSave: users come from the file at start (not
// requirepass' default), ACL SAVE writes ACL LIST lines, ACL LOAD replaces
// every user and disconnects clients of the old non-default users.
func TestACLFileStartLoadSave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.acl")
	if err := os.WriteFile(path, []byte("user bob on >pw +ping\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, addr, _ := startServer(t, Config{ACLFile: path})
	c := dial(t, addr)
	c.send("AUTH bob pw\r\nACL SETUSER ann on >x +@all ~* &*\r\n")
	c.expect("+OK\r\n-NOPERM this user has no permissions to run the 'acl|setuser' command\r\n")
	admin := dial(t, addr)
	admin.send("ACL SETUSER ann on >x +@all ~* &*\r\nACL SAVE\r\n")
	admin.expect("+OK\r\n+OK\r\n")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "user ann on #" + hashPassword("x") + " ~* &* +@all\n" +
		"user bob on #" + hashPassword("pw") + " resetchannels -@all +ping\n" +
		"user default on nopass ~* &* +@all\n"
	if string(got) != want {
		t.Fatalf("ACL SAVE wrote\n%s\nwant\n%s", got, want)
	}
	if err := os.WriteFile(path, []byte("user default on nopass +@all ~* &*\nuser carl on >c +@all\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	admin.send("ACL LOAD\r\nACL USERS\r\n")
	admin.expect("+OK\r\n*2\r\n$4\r\ncarl\r\n$7\r\ndefault\r\n")
	c.expectClosed() // bob's connection
	if err := os.WriteFile(path, []byte("nope\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	admin.send("ACL LOAD\r\n")
	admin.expect("-ERR " + path + ":1 should start with user keyword followed by the username. WARNING")
}

func TestACLFileConfigErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.acl")
	if err := os.WriteFile(good, []byte("user a on\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  Config
		is   error
		text string
	}{
		{"users and aclfile", Config{ACLFile: good, Users: []string{"x on"}}, ErrUsersAndACLFile, "Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid"},
		{"rules and aclfile", Config{ACLFile: good, UserRules: [][]string{{"x", "on"}}}, ErrUsersAndACLFile, "but not both"},
		{"missing file", Config{ACLFile: filepath.Join(dir, "none.acl")}, ErrACLFile, "server: aclfile: Error loading ACLs, opening file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg, newFakeBackend())
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("New: %v, want %v containing %q", err, tc.is, tc.text)
			}
		})
	}
}

func TestACLSaveLoadWithoutFile(t *testing.T) {
	_, addr, _ := startServer(t, Config{})
	c := dial(t, addr)
	c.send("ACL SAVE\r\nACL LOAD\r\n")
	c.expect("-" + errNoACLFile + "\r\n-" + errNoACLFile + "\r\n")
}

// TestConfigDefaultUserReset: a "user default ..." directive starts from a
// reset user, like ACLLoadConfiguredUsers (checked against redis-sentinel
// 7.0.15: "user default off" lists as "user default off sanitize-payload
// resetchannels -@all").
func TestConfigDefaultUserReset(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Users: []string{"default off"}}, "user default off sanitize-payload resetchannels -@all"},
		{Config{UserRules: [][]string{{"default", "off"}}}, "user default off sanitize-payload resetchannels -@all"},
		{Config{UserRules: [][]string{{"default", "on", "nopass", "~*", "&*", "+@all"}}}, "user default on nopass sanitize-payload ~* &* +@all"},
		{Config{UserRules: [][]string{{"bob", "on", "+ping"}}}, "user bob on resetchannels -@all +ping"},
		{Config{}, "user default on nopass ~* &* +@all"},
	}
	for _, tc := range tests {
		s, err := New(tc.cfg, newFakeBackend())
		if err != nil {
			t.Fatal(err)
		}
		got := s.ACLUsers()
		if !slices.Contains(got, tc.want) {
			t.Errorf("%+v: ACL LIST %q, want it to contain %q", tc.cfg, got, tc.want)
		}
	}
}

// TestAuthWithDefaultOff: with "user default off" (reset: -@all) AUTH and
// HELLO still run, like in Redis.
func TestAuthWithDefaultOff(t *testing.T) {
	_, addr, _ := startServer(t, Config{UserRules: [][]string{{"default", "off"}, {"adm", "on", ">pw", "+@all"}}})
	c := dial(t, addr)
	c.send("PING\r\nAUTH adm pw\r\nPING\r\n")
	c.expect("-NOAUTH Authentication required.\r\n+OK\r\n+PONG\r\n")
	h := dial(t, addr)
	h.send("HELLO 2 AUTH adm pw\r\n")
	h.expect("*12\r\n") // HELLO map of 6 fields
}
