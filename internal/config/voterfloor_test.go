package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestVoterFloorRoundTrip: a gosentinel.voter-floor line (even one before
// its monitor line) is read into the master, rewritten in place when the
// floor changes, dropped when the floor is gone, and a rewritten file
// loads back to the same state.
func TestVoterFloorRoundTrip(t *testing.T) {
	in := `port 26379
gosentinel.voter-floor "my m" 3 6900
sentinel monitor "my m" 127.0.0.1 6379 1
sentinel monitor other 127.0.0.1 6380 2
# a comment
`
	c := mustParse(t, in)
	m := c.Master("my m")
	if m.VoterFloor != 3 || m.VoterFloorLeft != 6900 {
		t.Fatalf("floor %d with %d ms left", m.VoterFloor, m.VoterFloorLeft)
	}
	if o := c.Master("other"); o.VoterFloor != 0 {
		t.Fatalf("other master has a floor: %d", o.VoterFloor)
	}
	m.VoterFloorLeft = 9400
	out := string(RewriteContent([]byte(in), c))
	want := `gosentinel.voter-floor "my m" 3 9400`
	if lines := strings.Split(out, "\n"); len(lines) < 2 || lines[1] != want {
		t.Fatalf("floor line not rewritten in place:\n%s", out)
	}
	back := mustParse(t, out)
	if !reflect.DeepEqual(normSentinel(back.Sentinel), normSentinel(c.Sentinel)) {
		t.Fatalf("state changed by the round trip:\n%s", out)
	}
	// A second floor is appended; a gone floor leaves no line.
	c.Master("other").VoterFloor, c.Master("other").VoterFloorLeft = 5, 42
	m.VoterFloor, m.VoterFloorLeft = 0, 0
	out = string(RewriteContent([]byte(out), c))
	if strings.Contains(out, `"my m" 3`) || !strings.Contains(out, "\ngosentinel.voter-floor other 5 42\n") {
		t.Fatalf("floors not updated:\n%s", out)
	}
	back = mustParse(t, out)
	if !reflect.DeepEqual(normSentinel(back.Sentinel), normSentinel(c.Sentinel)) {
		t.Fatalf("state changed by the second round trip:\n%s", out)
	}
	// What redis-sentinel's rewrite leaves of the line is a comment.
	back = mustParse(t, strings.Replace(out, "gosentinel.voter-floor other", "# ??? gosentinel.voter-floor other", 1))
	if back.Master("other").VoterFloor != 0 {
		t.Fatalf("a commented-out line was loaded")
	}
}

// TestVoterFloorErrors: a malformed line stops the load with its line
// number; "sentinel voter-floor" is refused as real Sentinel refuses it.
func TestVoterFloorErrors(t *testing.T) {
	const mon = "sentinel monitor m 127.0.0.1 6379 1\n"
	for _, tc := range []struct {
		line, msg string
	}{
		{"gosentinel.voter-floor m 3", msgBadDirective},
		{"gosentinel.voter-floor m 3 1 x", msgBadDirective},
		{"gosentinel.voter-floor nosuch 3 1", msgNoMaster},
		{"gosentinel.voter-floor m 1 1", msgFloorCount},
		{"gosentinel.voter-floor m three 1", msgFloorCount},
		{"gosentinel.voter-floor m 3 -1", msgFloorLeft},
		{"gosentinel.voter-floor m 3 soon", msgFloorLeft},
		{"sentinel voter-floor m 3 1", msgUnrecognized},
	} {
		_, err := Parse(strings.NewReader(mon+tc.line+"\n"), "f.conf")
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Line != 2 || ce.Msg != tc.msg {
			t.Errorf("%q: %v, want f.conf:2: %s", tc.line, err, tc.msg)
		}
	}
	_, err := Parse(strings.NewReader(mon+"gosentinel.voter-floor m 3 1\nGOSENTINEL.VOTER-FLOOR m 3 2\n"), "f.conf")
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Line != 3 || ce.Msg != msgFloorDup {
		t.Errorf("duplicate: %v", err)
	}
}

// TestVoterFloorLoadedByRealSentinels: redis-sentinel 7.0 and
// valkey-sentinel 8 start from a file we wrote with a voter floor, and
// their rewrite keeps every other piece of state and comments the line
// out ("# ??? "), which we then load without a floor.
func TestVoterFloorLoadedByRealSentinels(t *testing.T) {
	needReal(t)
	for _, bin := range []string{realSentinel, valkeySentinel(t)} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			dir := t.TempDir()
			mport, port := freePort(t), freePort(t)
			in := "sentinel monitor m 127.0.0.1 " + strconv.Itoa(mport) + " 1\n"
			c := mustParse(t, in)
			c.Server.AbsDir = dir
			c.Server.Port = port
			c.Sentinel.MyID = fixedID
			m := c.Master("m")
			m.KnownSentinels = []Peer{{"127.0.0.4", 26379, strings.Repeat("c", 40)}}
			m.VoterFloor, m.VoterFloorLeft = 3, 6900
			conf := filepath.Join(dir, "sentinel.conf")
			if err := os.WriteFile(conf, []byte(in), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := Rewrite(conf, c); err != nil {
				t.Fatal(err)
			}
			ours, _ := os.ReadFile(conf)
			if !strings.Contains(string(ours), "\ngosentinel.voter-floor m 3 6900\n") {
				t.Fatalf("no floor line written:\n%s", ours)
			}
			real := runBin(t, bin, dir, port, nil, "", "")
			if !strings.Contains(real, "\n# ??? gosentinel.voter-floor m 3 6900\n") {
				t.Fatalf("%s did not comment the line out:\n%s", bin, real)
			}
			back, err := Parse(strings.NewReader(real), "real.conf")
			if err != nil {
				t.Fatalf("%v\n%s", err, real)
			}
			m.VoterFloor, m.VoterFloorLeft = 0, 0
			if want, got := normSentinel(c.Sentinel), normSentinel(back.Sentinel); !reflect.DeepEqual(want, got) {
				t.Fatalf("state after %s's rewrite:\n--- ours\n%s--- theirs\n%s", bin, ours, real)
			}
		})
	}
}
