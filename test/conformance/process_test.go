package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// relSide starts s's implementation the way tools do: from root as cwd,
// with a relative config path, `dir ./data` and `logfile log.txt`.
func relSide(t *testing.T, name, bin string) (*side, string) {
	t.Helper()
	s := &side{name: name, bin: bin, ports: map[string]string{}, hideNewer: true}
	s.top = testutil.StartTopology(t, 0)
	s.port = testutil.FreePort(t)
	root := t.TempDir()
	for _, d := range []string{"etc", "data"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.dir = root
	s.conf = filepath.Join(root, "etc", "sentinel.conf")
	body := fmt.Sprintf("# tool-written\nport %d\nbind 127.0.0.1\ndir ./data\nlogfile log.txt\nsentinel monitor mym 127.0.0.1 %d 1\n", s.port, s.top.Master.Port)
	if err := os.WriteFile(s.conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s.ports[fmt.Sprint(s.port)] = "<sentinel-port>"
	s.ports[fmt.Sprint(s.top.Master.Port)] = "<master-port>"
	return s, root
}

func (s *side) startRel(t *testing.T, root string) {
	t.Helper()
	s.proc = testutil.StartSentinelAt(t, s.bin, root, []string{"etc/sentinel.conf"}, s.port)
	s.myid = dialSide(t, s).do("SENTINEL", "MYID").Str
}

func TestRelativeConfigAndRestart(t *testing.T) {
	t.Parallel()
	var ps [2]*side
	var roots [2]string
	var results [2][]string
	for i, im := range sides() {
		s, root := relSide(t, im[0], im[1])
		ps[i], roots[i] = s, root
		s.startRel(t, root)
		cl := dialSide(t, s)
		// Readiness probe as tools send it: inline, with a stray empty line.
		if err := cl.send("PING\r\n\n"); err != nil {
			t.Fatal(err)
		}
		v, err := cl.read(3 * time.Second)
		if err != nil || s.render(v) != "+PONG" {
			t.Errorf("%s: inline PING probe: %s %v", s.name, s.render(v), err)
		}
		info := cl.do("INFO", "server").Str
		if want := "config_file:" + s.conf + "\r\n"; !strings.Contains(info, want) {
			t.Errorf("%s: INFO server lacks %q", s.name, want)
		}
		if _, err := os.Stat(filepath.Join(root, "data", "log.txt")); err != nil {
			t.Errorf("%s: logfile not under dir: %v", s.name, err)
		}
		// Raise the epochs (a vote) so that the restart has something to
		// keep; gosentinel votes only for a master it sees down
		// (votegate_test.go).
		resume := s.seeMasterDown(t)
		results[i] = append(results[i], s.render(cl.do("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", fmt.Sprint(s.top.Master.Port), "3", strings.Repeat("2", 40))))
		resume()
		myid := s.myid
		s.proc.Term()
		if se := s.stderr(t); se != "" {
			t.Errorf("%s: stderr not empty: %q", s.name, se)
		}
		s.startRel(t, root)
		if s.myid != myid {
			t.Errorf("%s: myid changed across restart: %s -> %s", s.name, myid, s.myid)
		}
		cl = dialSide(t, s)
		results[i] = append(results[i],
			s.render(cl.do("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", fmt.Sprint(s.top.Master.Port), "3", strings.Repeat("4", 40))),
			s.render(cl.do("SENTINEL", "CONFIG", "GET", "*")), s.render(cl.do("ROLE")))
		s.proc.Term()
		if se := s.stderr(t); se != "" {
			t.Errorf("%s: stderr not empty after restart: %q", s.name, se)
		}
	}
	if d := diffLines(t, results[0], results[1]); d != "" {
		t.Errorf("replies differ:\n%s", d)
	}
	for i, s := range ps {
		s.dir = roots[i] // confText replaces it by <dir>
	}
	compareConf(t, ps, "after a relative-path start, a vote and a restart", false)
}
