// Package redissuite ports Redis' own Sentinel test suite
// (redis/tests/sentinel/tests/*.tcl of redis 7.0) to Go and runs it against
// the gosentinel binary, next to real redis-server processes.
//
// The harness mirrors tests/instances.tcl and includes/init-tests.tcl: each
// scenario gets its own 5 sentinels and 5 redis-servers (ports from the
// kernel), sentinels are started as `<binary> sentinel_<id>/sentinel.conf`
// from a working directory with `dir ./sentinel_<id>` and `logfile log.txt`,
// then every sentinel monitors `mymaster` with quorum 3 and the init's
// shortened timers. Set GOSENTINEL_SUITE_BIN=/usr/bin/redis-sentinel to run
// the same scenarios against the real Sentinel (to check a test itself).
package redissuite

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// sentinelBin is the sentinel binary under test, set in TestMain.
var sentinelBin string

// suiteBinEnv names the variable that replaces gosentinel by another
// sentinel binary (e.g. /usr/bin/redis-sentinel).
const suiteBinEnv = "GOSENTINEL_SUITE_BIN"

// longEnv enables the slow scenarios.
const longEnv = "GOSENTINEL_SUITE_LONG"

func TestMain(m *testing.M) {
	flag.Parse()
	raiseParallel(8)
	os.Exit(buildAndRun(m))
}

// raiseParallel sets -test.parallel to n unless it was given: the
// scenarios wait on processes and timers, not on the CPU (a whole run uses
// ~20 s of CPU), so the default (GOMAXPROCS, 2 here) only serialises them.
func raiseParallel(n int) {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}

func buildAndRun(m *testing.M) int {
	if b := os.Getenv(suiteBinEnv); b != "" {
		sentinelBin = b
		return m.Run()
	}
	return testutil.RunWithGosentinel("redissuite", func(bin, _ string) int {
		sentinelBin = bin
		return m.Run()
	})
}

// Counts and timers of the Tcl harness (run.tcl, init-tests.tcl).
const (
	instancesCount    = 5
	masterName        = "mymaster"
	downAfterMs       = 2000
	failoverTimeoutMs = 10000
	tiltPeriodMs      = 5000
	parallelSyncs     = 10
)

// instance is one sentinel or redis-server of a suite, restartable on its
// port with its (possibly rewritten) config file.
type instance struct {
	kind   string // "sentinel" or "redis"
	port   int
	cwd    string   // working directory the process is started from
	args   []string // argv after the binary
	bin    string
	proc   *testutil.Process
	mu     sync.Mutex
	client *redis.Client
	// user and password authenticate the test's own client (R/S), for
	// scenarios that set requirepass or ACLs on an instance.
	user, password string
}

func (in *instance) addr() string { return "127.0.0.1:" + strconv.Itoa(in.port) }

// cli returns a RESP2 client for the instance (like the Tcl redis client).
func (in *instance) cli() *redis.Client {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.client == nil {
		in.client = redis.NewClient(&redis.Options{
			Addr:            in.addr(),
			Protocol:        2,
			DisableIdentity: true,
			MaxRetries:      -1,
			DialTimeout:     time.Second,
			ReadTimeout:     3 * time.Second,
			WriteTimeout:    time.Second,
			PoolSize:        2,
			Username:        in.user,
			Password:        in.password,
		})
	}
	return in.client
}

func (in *instance) closeClient() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.client != nil {
		_ = in.client.Close()
		in.client = nil
	}
}

// suite is the set of processes of one scenario (tests/instances.tcl).
type suite struct {
	t         *testing.T
	sentinels []*instance
	redis     []*instance
	masterID  int
	quorum    int
}

// newSuite starts the instances and runs the init tests
// (includes/init-tests.tcl): a master with 4 replicas, every sentinel
// monitoring it with quorum n/2+1, talking with it and having discovered
// the other sentinels and the replicas.
func newSuite(t *testing.T) *suite {
	t.Helper()
	if testing.Short() {
		t.Skip("starts 10 real processes")
	}
	s := &suite{t: t, quorum: instancesCount/2 + 1}
	cwd := t.TempDir()
	t.Cleanup(func() {
		for _, in := range append(append([]*instance{}, s.sentinels...), s.redis...) {
			in.closeClient()
		}
	})
	t.Cleanup(func() {
		if t.Failed() {
			s.dumpLogs()
		}
	})
	t.Cleanup(func() {
		// Tools treat anything a sentinel writes on stderr as a crash
		// (sentinel-reference.md §22). Every process of the unit shares
		// cwd/stderr.txt (testutil.StartSentinelAt), and a redis-server
		// with a logfile writes nothing there either.
		if b, err := os.ReadFile(filepath.Join(cwd, "stderr.txt")); err == nil && len(b) > 0 {
			t.Errorf("a process wrote on stderr:\n%s", b)
		}
	})
	for i := 0; i < instancesCount; i++ {
		s.redis = append(s.redis, s.spawnRedis(cwd, i))
	}
	for i := 0; i < instancesCount; i++ {
		s.sentinels = append(s.sentinels, s.spawnSentinel(cwd, i))
	}
	s.initTests()
	return s
}

// spawnRedis writes redis_<id>/redis.conf like spawn_instance and starts it.
func (s *suite) spawnRedis(cwd string, id int) *instance {
	t := s.t
	port := testutil.FreePort(t)
	rel := "redis_" + strconv.Itoa(id)
	if err := os.MkdirAll(filepath.Join(cwd, rel), 0o755); err != nil {
		t.Fatal(err)
	}
	body := strings.Join([]string{
		"port " + strconv.Itoa(port),
		"bind 127.0.0.1",
		"dir ./" + rel,
		"logfile log.txt",
		"enable-protected-configs yes",
		"enable-debug-command yes",
		"save ''",
		"appendonly no",
		"repl-diskless-sync yes",
		"repl-diskless-sync-delay 0",
	}, "\n") + "\n"
	writeFile(t, filepath.Join(cwd, rel, "redis.conf"), body)
	in := &instance{kind: "redis", port: port, cwd: cwd, args: []string{rel + "/redis.conf"}, bin: testutil.Binary(t, "redis-server")}
	in.proc = testutil.StartSentinelAt(t, in.bin, in.cwd, in.args, port)
	return in
}

// spawnSentinel writes sentinel_<id>/sentinel.conf like spawn_instance
// (plus includes/sentinel.conf) and starts the sentinel under test.
func (s *suite) spawnSentinel(cwd string, id int) *instance {
	t := s.t
	port := testutil.FreePort(t)
	rel := "sentinel_" + strconv.Itoa(id)
	if err := os.MkdirAll(filepath.Join(cwd, rel), 0o755); err != nil {
		t.Fatal(err)
	}
	body := strings.Join([]string{
		"port " + strconv.Itoa(port),
		"bind 127.0.0.1",
		"dir ./" + rel,
		"logfile log.txt",
		"sentinel deny-scripts-reconfig no",
		"enable-protected-configs yes",
		"enable-debug-command yes",
		"sentinel resolve-hostnames yes",
	}, "\n") + "\n"
	writeFile(t, filepath.Join(cwd, rel, "sentinel.conf"), body)
	in := &instance{kind: "sentinel", port: port, cwd: cwd, args: []string{rel + "/sentinel.conf"}, bin: sentinelBin}
	in.proc = testutil.StartSentinelAt(t, in.bin, in.cwd, in.args, port)
	return in
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// initTests is includes/init-tests.tcl.
func (s *suite) initTests() {
	t := s.t
	t.Helper()
	s.createMasterSlaveCluster()
	s.masterID = 0
	m := s.redis[0]
	for id := range s.sentinels {
		s.S(id, "SENTINEL", "MONITOR", masterName, "127.0.0.1", m.port, s.quorum)
	}
	for id := range s.sentinels {
		if len(s.masterDict(id)) == 0 {
			t.Fatalf("sentinel %d: SENTINEL MASTER mymaster is empty", id)
		}
		s.S(id, "SENTINEL", "SET", masterName, "down-after-milliseconds", downAfterMs)
		s.S(id, "SENTINEL", "SET", masterName, "failover-timeout", failoverTimeoutMs)
		s.S(id, "SENTINEL", "DEBUG", "tilt-period", tiltPeriodMs)
		s.S(id, "SENTINEL", "SET", masterName, "parallel-syncs", parallelSyncs)
	}
	for id := range s.sentinels {
		s.waitFor(50*time.Second, fmt.Sprintf("sentinel %d can talk with the master", id), func() bool {
			_, err := s.try(id, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName)
			return err == nil
		})
	}
	s.verifyAutoDiscovery()
	for id := range s.sentinels {
		s.waitFor(50*time.Second, fmt.Sprintf("sentinel %d discovers the %d slaves", id, instancesCount-1), func() bool {
			return s.masterField(id, "num-slaves") == strconv.Itoa(instancesCount-1)
		})
	}
}

// createMasterSlaveCluster is create_redis_master_slave_cluster: redis 0 is
// the master, the others replicate from it.
func (s *suite) createMasterSlaveCluster() {
	for id := range s.redis {
		s.R(id, "REPLICAOF", "NO", "ONE")
		s.R(id, "FLUSHALL")
	}
	for id := 1; id < len(s.redis); id++ {
		s.R(id, "REPLICAOF", "127.0.0.1", s.redis[0].port)
	}
	for id := 1; id < len(s.redis); id++ {
		s.waitFor(50*time.Second, fmt.Sprintf("redis %d replicates", id), func() bool {
			return s.RI(id, "master_link_status") == "up"
		})
	}
}

// verifyAutoDiscovery is verify_sentinel_auto_discovery.
func (s *suite) verifyAutoDiscovery() {
	for id := range s.sentinels {
		s.waitFor(50*time.Second, fmt.Sprintf("sentinel %d discovers the other sentinels", id), func() bool {
			return s.masterField(id, "num-other-sentinels") == strconv.Itoa(len(s.sentinels)-1)
		})
	}
}

// ctx returns a context for one command.
func cmdCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 5*time.Second)
}

func toArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case int:
			out[i] = strconv.Itoa(v)
		default:
			out[i] = v
		}
	}
	return out
}

func do(in *instance, args ...any) (any, error) {
	ctx, cancel := cmdCtx()
	defer cancel()
	return in.cli().Do(ctx, toArgs(args)...).Result()
}

// try sends a command to sentinel id and returns the reply or the error.
func (s *suite) try(id int, args ...any) (any, error) { return do(s.sentinels[id], args...) }

// S is the Tcl `S $id ...`: a command to sentinel id; an error fails the test.
func (s *suite) S(id int, args ...any) any {
	s.t.Helper()
	v, err := s.try(id, args...)
	if err != nil {
		s.t.Fatalf("sentinel %d: %v: %v", id, args, err)
	}
	return v
}

// R is the Tcl `R $id ...`: a command to redis id; an error fails the test.
func (s *suite) R(id int, args ...any) any {
	s.t.Helper()
	v, err := do(s.redis[id], args...)
	if err != nil {
		s.t.Fatalf("redis %d: %v: %v", id, args, err)
	}
	return v
}

// RI is the Tcl `RI $id field`: a field of INFO of redis id ("" on error).
func (s *suite) RI(id int, field string) string {
	v, err := do(s.redis[id], "INFO")
	if err != nil {
		return ""
	}
	return infoField(fmt.Sprint(v), field)
}

func infoField(info, field string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == field {
			return v
		}
	}
	return ""
}

// dict turns a flat RESP2 array of field/value pairs into a map.
func dict(v any) map[string]string {
	arr, _ := v.([]any)
	m := map[string]string{}
	for i := 0; i+1 < len(arr); i += 2 {
		m[fmt.Sprint(arr[i])] = fmt.Sprint(arr[i+1])
	}
	return m
}

// masterDict is `dict get [S $id SENTINEL MASTER mymaster]` (empty on error).
func (s *suite) masterDict(id int) map[string]string {
	v, err := s.try(id, "SENTINEL", "MASTER", masterName)
	if err != nil {
		return map[string]string{}
	}
	return dict(v)
}

func (s *suite) masterField(id int, field string) string { return s.masterDict(id)[field] }

// masterAddr is SENTINEL GET-MASTER-ADDR-BY-NAME of sentinel id; port ""
// on error.
func (s *suite) masterAddr(id int) (host, port string) {
	v, err := s.try(id, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName)
	arr, _ := v.([]any)
	if err != nil || len(arr) != 2 {
		return "", ""
	}
	return fmt.Sprint(arr[0]), fmt.Sprint(arr[1])
}

// masterPort returns the master port sentinel id reports ("" on error).
func (s *suite) masterPort(id int) string {
	_, p := s.masterAddr(id)
	return p
}

// redisIDByPort is get_instance_id_by_port redis.
func (s *suite) redisIDByPort(port string) int {
	s.t.Helper()
	for id, in := range s.redis {
		if strconv.Itoa(in.port) == port {
			return id
		}
	}
	s.t.Fatalf("no redis instance on port %q", port)
	return -1
}

// rport is RPort: the port of redis id as the sentinels report it.
func (s *suite) rport(id int) string { return strconv.Itoa(s.redis[id].port) }

// waitFor is wait_for_condition: polls cond every 50 ms until timeout.
func (s *suite) waitFor(timeout time.Duration, what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out after %v waiting for: %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond) // poll: there is no event to await
	}
}

// holds checks that cond stays true for d (polling), failing otherwise.
// It is for the Tcl tests that assert something did NOT happen.
func (s *suite) holds(d time.Duration, what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !cond() {
			s.t.Fatalf("condition broken: %s", what)
		}
		time.Sleep(50 * time.Millisecond) // poll: asserting an absence
	}
}

// termGrace is how long stop_instance waits after SIGTERM before it
// crashes the process with SIGSEGV (instances.tcl, without valgrind).
const termGrace = 10 * time.Second

// kill is kill_instance: SIGTERM, then wait for the exit. A process that
// does not exit within termGrace fails the unit (the Tcl harness would
// SIGSEGV it) and is killed.
func (s *suite) kill(in *instance) {
	s.t.Helper()
	in.closeClient()
	go in.proc.Term() // returns when the process has exited
	in.proc.Cont()    // stop_instance: it may have been SIGSTOPped (either order works)
	select {
	case <-in.proc.Done():
	case <-time.After(termGrace):
		s.t.Errorf("%s on port %d still running %v after SIGTERM", in.kind, in.port, termGrace)
		in.proc.Kill()
	}
}

// restart is restart_instance: same binary, same argv and working
// directory, so the (rewritten) config file is reused.
func (s *suite) restart(in *instance) {
	s.t.Helper()
	in.closeClient()
	in.proc = testutil.StartSentinelAt(s.t, in.bin, in.cwd, in.args, in.port)
}

// killRedis / restartRedis / killSentinel / restartSentinel by id.
func (s *suite) killRedis(id int)       { s.kill(s.redis[id]) }
func (s *suite) restartRedis(id int)    { s.restart(s.redis[id]) }
func (s *suite) killSentinel(id int)    { s.kill(s.sentinels[id]) }
func (s *suite) restartSentinel(id int) { s.restart(s.sentinels[id]) }

// restartKilled is restart_killed_instances.
func (s *suite) restartKilled() {
	for _, in := range append(append([]*instance{}, s.redis...), s.sentinels...) {
		if in.proc.Exited() {
			s.restart(in)
		}
	}
}

// foreachSentinel runs f for each sentinel id (foreach_sentinel_id).
func (s *suite) foreachSentinel(f func(id int)) {
	for id := range s.sentinels {
		f(id)
	}
}

// waitFailover waits until every live sentinel reports a master port other
// than oldPort, and returns the new master's redis id (as sentinel `via`
// reports it).
func (s *suite) waitFailover(oldPort string, via int, timeout time.Duration) int {
	s.t.Helper()
	s.foreachSentinel(func(id int) {
		if s.sentinels[id].proc.Exited() {
			return
		}
		s.waitFor(timeout, fmt.Sprintf("sentinel %d receives failover info", id), func() bool {
			p := s.masterPort(id)
			return p != "" && p != oldPort
		})
	})
	return s.redisIDByPort(s.masterPort(via))
}

// dumpLogs prints the sentinels' logs of a failed scenario (tail).
func (s *suite) dumpLogs() {
	for id, in := range s.sentinels {
		b, _ := os.ReadFile(filepath.Join(in.cwd, "sentinel_"+strconv.Itoa(id), "log.txt"))
		lines := strings.Split(string(b), "\n")
		if len(lines) > 40 {
			lines = lines[len(lines)-40:]
		}
		s.t.Logf("--- sentinel %d log (tail) ---\n%s", id, strings.Join(lines, "\n"))
	}
}

// step runs one `test "name" {...}` of a Tcl unit. Steps of a unit share
// their processes and run in order; a fatal failure ends the unit, like
// the Tcl suite.
func (s *suite) step(name string, f func()) {
	s.t.Helper()
	start := time.Now()
	f()
	s.t.Logf("ok %s (%v)", name, time.Since(start).Round(time.Millisecond))
}
