package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// spec describes the topology and sentinel.conf both sides get.
type spec struct {
	replicas     int        // replicas of the master
	replicaExtra [][]string // extra redis.conf lines per replica
	quorum       int        // 0 means 1
	downAfter    int        // ms; 0 means 30000 (not written)
	failover     int        // failover-timeout ms; 0 means not written
	extra        string     // extra sentinel.conf lines (after monitor)
	noMonitor    bool       // no `sentinel monitor` line at all
	// body, when set, is the whole sentinel.conf with {PORT} (sentinel
	// port) and {M} (master port) placeholders; the fields above are
	// then ignored except replicas.
	body string
	// password is sent with AUTH before the harness's own commands
	// (set it with a requirepass line in extra).
	password string
	// authPass, when set, starts the servers with testutil.StartAuthTopology
	// (user testutil.AuthUser / authPass; the default user may only PING).
	authPass string
	// serverExtra, when set, is added to every redis-server's config
	// (master and replicas), e.g. rename-command lines.
	serverExtra []string
	// valkeyNodes starts valkey-server data nodes instead of redis-server.
	valkeyNodes bool
	// files are written (mode 0755) into the sentinel's directory before
	// it starts: scripts named by relative paths in the config.
	files map[string]string
}

// side is one sentinel implementation with its own topology.
type side struct {
	name string // "real" or "ours"
	bin  string
	top  *testutil.Topology
	proc *testutil.Process
	dir  string
	conf string
	port int
	myid string
	// ports maps a port number (as text) to its placeholder.
	ports map[string]string
	// password is sent with AUTH on the harness's own connections.
	password string
	// hideNewer drops from rendered replies what only Redis 7.2+/Valkey
	// add (newer_test.go), for the comparisons with 7.0.15.
	hideNewer bool
}

// sides returns the two implementations, real first.
func sides() [][2]string {
	return [][2]string{{"real", realBin}, {"ours", oursBin}}
}

// confBody returns the sentinel.conf text for s on a master at mport.
func (sp spec) confBody(port, mport int) string {
	if sp.body != "" {
		return strings.NewReplacer("{PORT}", strconv.Itoa(port), "{M}", strconv.Itoa(mport)).Replace(sp.body)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "port %d\nbind 127.0.0.1\nlogfile \"sentinel.log\"\n", port)
	if !sp.noMonitor {
		q := sp.quorum
		if q == 0 {
			q = 1
		}
		fmt.Fprintf(&b, "sentinel monitor mym 127.0.0.1 %d %d\n", mport, q)
		if sp.downAfter != 0 {
			fmt.Fprintf(&b, "sentinel down-after-milliseconds mym %d\n", sp.downAfter)
		}
		if sp.failover != 0 {
			fmt.Fprintf(&b, "sentinel failover-timeout mym %d\n", sp.failover)
		}
	}
	b.WriteString(sp.extra)
	return b.String()
}

// startPair starts the topology and the sentinel once per implementation.
func startPair(t *testing.T, sp spec) [2]*side {
	t.Helper()
	var out [2]*side
	for i, im := range sides() {
		out[i] = startSide(t, sp, im[0], im[1])
		out[i].hideNewer = true
	}
	return out
}

func startSide(t *testing.T, sp spec, name, bin string) *side {
	t.Helper()
	s := &side{name: name, bin: bin, ports: map[string]string{}, password: sp.password}
	switch {
	case sp.valkeyNodes:
		s.top = testutil.StartValkeyTopology(t, sp.replicas, sp.replicaExtra...)
	case sp.authPass != "":
		s.top = testutil.StartAuthTopology(t, sp.authPass, sp.replicas, sp.replicaExtra...)
	case sp.serverExtra != nil:
		s.top = startTopologyExtra(t, sp)
	default:
		s.top = testutil.StartTopology(t, sp.replicas, sp.replicaExtra...)
	}
	s.port = testutil.FreePort(t)
	s.dir = t.TempDir()
	s.conf = filepath.Join(s.dir, "sentinel.conf")
	for name, body := range sp.files {
		if err := os.WriteFile(filepath.Join(s.dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(s.conf, []byte(sp.confBody(s.port, s.top.Master.Port)), 0o644); err != nil {
		t.Fatal(err)
	}
	if sp.password != "" {
		s.proc = testutil.StartSentinelNoAuth(t, bin, s.conf, s.port)
	} else {
		s.proc = testutil.StartSentinelConf(t, bin, s.conf, s.port, filepath.Join(s.dir, "sentinel.log"))
	}
	// Tools treat any stderr output as a crash (§22): checked for every
	// sentinel of every test, before t.Cleanup kills it.
	t.Cleanup(func() {
		if b, err := os.ReadFile(s.proc.StderrPath()); err != nil || len(b) != 0 {
			t.Errorf("%s: stderr not empty: %q %v", s.name, b, err)
		}
	})
	s.ports[strconv.Itoa(s.port)] = "<sentinel-port>"
	s.ports[strconv.Itoa(s.top.Master.Port)] = "<master-port>"
	for i, r := range s.top.Replicas {
		s.ports[strconv.Itoa(r.Port)] = fmt.Sprintf("<replica%d-port>", i)
	}
	c := dialSide(t, s)
	if sp.password != "" {
		c.do("AUTH", sp.password)
	}
	s.myid = c.do("SENTINEL", "MYID").Str
	return s
}

// addr returns the sentinel's address.
func (s *side) addr() string { return s.proc.Addr() }

// waitDiscovered waits until the sentinel knows all replicas of mym with
// their link up and has INFO from the master.
func (s *side) waitDiscovered(t *testing.T) {
	t.Helper()
	testutil.WaitFor(t, 20*time.Second, s.name+" discovers the replicas", func() bool {
		c, err := dialQuiet(s.addr())
		if err != nil {
			return false
		}
		defer c.close()
		if s.password != "" {
			if _, err := c.try("AUTH", s.password); err != nil {
				return false
			}
		}
		m, err := c.try("SENTINEL", "MASTER", "mym")
		if err != nil || pairs(m)["num-slaves"] != strconv.Itoa(len(s.top.Replicas)) || pairs(m)["info-refresh"] == "0" {
			return false
		}
		reps, err := c.try("SENTINEL", "REPLICAS", "mym")
		if err != nil || len(reps.Elems) != len(s.top.Replicas) {
			return false
		}
		for _, r := range reps.Elems {
			p := pairs(r)
			if p["master-link-status"] != "ok" || p["info-refresh"] == "0" || p["role-reported"] != "slave" {
				return false
			}
		}
		return true
	})
}

// stderr returns what the process wrote to stderr so far.
func (s *side) stderr(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(s.proc.StderrPath())
	if err != nil {
		t.Fatalf("%s: read stderr: %v", s.name, err)
	}
	return string(b)
}

// startTopologyExtra is testutil.StartTopology with sp.serverExtra on every
// server (StartTopology gives extra lines to replicas only).
func startTopologyExtra(t *testing.T, sp spec) *testutil.Topology {
	t.Helper()
	top := &testutil.Topology{Master: testutil.StartRedis(t, sp.serverExtra...)}
	for i := 0; i < sp.replicas; i++ {
		extra := append([]string{fmt.Sprintf("replicaof 127.0.0.1 %d", top.Master.Port)}, sp.serverExtra...)
		if i < len(sp.replicaExtra) {
			extra = append(extra, sp.replicaExtra[i]...)
		}
		top.Replicas = append(top.Replicas, testutil.StartRedis(t, extra...))
	}
	return top
}
