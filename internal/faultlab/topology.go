package faultlab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
)

// Topology is one lab's hosts and processes: redis on h1..h3 (h1 the
// initial master), a sentinel on each sentinel host, the client host c1 and
// the observer obs (never partitioned).
type Topology struct {
	Lab   *netlab.Lab
	Kind  Kind
	Setup Setup
	Dir   string
	// GoBin is the gosentinel binary.
	GoBin string
	// RedisHosts and SentinelHosts name the hosts, in order.
	RedisHosts, SentinelHosts []string
	// SetupPhases is how long each step of BuildTopology took, in seconds
	// (hosts, redis_started, replicas_up, sentinels_started,
	// sentinels_healthy); the runner adds them to RunResult.Phases.
	SetupPhases map[string]float64

	hosts map[string]*netlab.Host
	obs   *obsClients
	tls   *labTLS // Setup.TLS: the lab CA and certificates (nil: plain TCP)

	mu       sync.Mutex
	procs    map[string]*netlab.Proc // "redis-h1" / "sentinel-h1" → process
	expected map[*netlab.Proc]bool   // processes stopped on purpose
	stopped  map[string]bool         // SIGSTOPped on purpose (by proc name)
	aliases  map[string]string       // other spellings of an address → canonical ip:port
	ipHost   map[string]string       // ip → host name (every ip a host ever had)
	origIP   map[string]string       // host → first ip
	// announced maps "h:port" (a real redis or sentinel port) to the
	// "ip:port" the node announces instead (E4's port-mapping NAT).
	announced map[string]string
}

// ErrNotHealthy is returned when a topology does not become healthy in time.
var ErrNotHealthy = errors.New("faultlab: topology did not become healthy")

// BuildTopology adds the hosts to lab, writes the config files under dir,
// starts redis on h1..h3 and the sentinels, and waits until the topology
// is healthy (see WaitHealthy).
func BuildTopology(ctx context.Context, lab *netlab.Lab, kind Kind, setup Setup, dir, goBin string) (*Topology, error) {
	setup = setup.withDefaults()
	t := &Topology{Lab: lab, Kind: kind, Setup: setup, Dir: dir, GoBin: goBin,
		hosts: map[string]*netlab.Host{}, procs: map[string]*netlab.Proc{}, expected: map[*netlab.Proc]bool{},
		stopped: map[string]bool{}, aliases: map[string]string{}, ipHost: map[string]string{}, origIP: map[string]string{},
		SetupPhases: map[string]float64{}}
	t.RedisHosts = []string{"h1", "h2", "h3"}
	for i := 1; i <= setup.Sentinels; i++ {
		if setup.SeparateSentinels {
			t.SentinelHosts = append(t.SentinelHosts, fmt.Sprintf("s%d", i))
		} else {
			t.SentinelHosts = append(t.SentinelHosts, fmt.Sprintf("h%d", i))
		}
	}
	names := append([]string{}, t.RedisHosts...)
	for _, h := range t.SentinelHosts {
		if !contains(names, h) {
			names = append(names, h)
		}
	}
	names = append(names, "c1", "obs")
	mark := time.Now()
	step := func(name string) {
		now := time.Now()
		t.SetupPhases[name] = secs(now.Sub(mark))
		mark = now
	}
	hs, err := lab.AddHosts(names...)
	if err != nil {
		return nil, fmt.Errorf("add hosts %s: %w", strings.Join(names, " "), err)
	}
	for _, h := range hs {
		t.hosts[h.Name] = h
		t.ipHost[h.IP()] = h.Name
		t.origIP[h.Name] = h.IP()
	}
	step("hosts")
	if err := t.setupTLS(); err != nil {
		return nil, err
	}
	t.obs = newObsClients(t.Dialer("obs"), setup.Auth.RedisPass, setup.Auth.SentinelRequirePass)
	if setup.Prepare != nil {
		if err := setup.Prepare(ctx, t); err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
	}
	step("prepare")
	// The processes of one step start at once: each start waits 0.3–2 s
	// for its `ip netns exec … unshare … sh` wrapper under load.
	if err := startAll(t.RedisHosts, t.StartRedis); err != nil {
		return nil, err
	}
	step("redis_started")
	// The sentinels start once the replicas are connected: a sentinel
	// learns the replicas from the master's INFO and their link status
	// from their own INFO, both every 10 s, so a sentinel whose first INFO
	// came before the replicas' sync waited one more INFO period for them
	// (the topology took 11–14 s instead of ~3 s).
	healthyBy := time.Now().Add(60 * time.Second)
	if err := t.waitReplicasUp(ctx, healthyBy); err != nil {
		return nil, err
	}
	step("replicas_up")
	var first []string
	for _, h := range t.SentinelHosts {
		if !contains(setup.LateSentinels, h) {
			first = append(first, h)
		}
	}
	if err := startAll(first, t.StartSentinel); err != nil {
		return nil, err
	}
	step("sentinels_started")
	if err := t.WaitHealthy(ctx, time.Until(healthyBy)); err != nil {
		return nil, err
	}
	step("sentinels_healthy")
	return t, nil
}

// startAll calls start for every host at once and returns the errors of
// those that failed, in the order of hosts.
func startAll(hosts []string, start func(h string) error) error {
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = start(h)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Close closes the observer's connections (the lab kills the processes).
func (t *Topology) Close() {
	if t.obs != nil {
		t.obs.close()
	}
}

// Host returns a host by name (nil if absent).
func (t *Topology) Host(name string) *netlab.Host { return t.hosts[name] }

// Hosts returns the named hosts (unknown names are skipped).
func (t *Topology) Hosts(names ...string) []*netlab.Host {
	var out []*netlab.Host
	for _, n := range names {
		if h := t.hosts[n]; h != nil {
			out = append(out, h)
		}
	}
	return out
}

// RedisAddr is the canonical "ip:port" of the redis on host h (its first IP).
func (t *Topology) RedisAddr(h string) string {
	return fmt.Sprintf("%s:%d", t.origIP[h], RedisPort)
}

// SentinelAddr is the current "ip:port" of the sentinel on host h.
func (t *Topology) SentinelAddr(h string) string { return t.hosts[h].Addr(SentinelPort) }

// currentRedisAddr is the current "ip:port" of the redis on host h.
func (t *Topology) currentRedisAddr(h string) string { return t.hosts[h].Addr(RedisPort) }

// HostOf maps an address as a sentinel or ROLE reports it (ip or host
// name, with or without port) to the host name ("" if unknown).
func (t *Topology) HostOf(addr string) string {
	host := addr
	t.mu.Lock()
	for k, v := range t.announced {
		if v == addr {
			t.mu.Unlock()
			return k[:strings.Index(k, ":")]
		}
	}
	t.mu.Unlock()
	if i := strings.LastIndex(addr, ":"); i >= 0 {
		host = addr[:i]
	}
	if _, ok := t.hosts[host]; ok {
		return host
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ipHost[host]
}

// Aliases maps every other spelling of a redis or sentinel address (host
// name, later IPs) to the canonical first-IP address, for workload.Check.
func (t *Topology) Aliases() map[string]string {
	out := map[string]string{}
	for n, h := range t.hosts {
		_ = h
		for _, p := range []int{RedisPort, SentinelPort} {
			out[fmt.Sprintf("%s:%d", n, p)] = fmt.Sprintf("%s:%d", t.origIP[n], p)
		}
	}
	t.mu.Lock()
	for k, v := range t.announced {
		h, p, _ := strings.Cut(k, ":")
		out[v] = t.origIP[h] + ":" + p
	}
	for ip, n := range t.ipHost {
		if ip != t.origIP[n] {
			for _, p := range []int{RedisPort, SentinelPort} {
				out[fmt.Sprintf("%s:%d", ip, p)] = fmt.Sprintf("%s:%d", t.origIP[n], p)
			}
		}
	}
	t.mu.Unlock()
	return out
}

// ChangeIP gives host h a new address behind the same name.
func (t *Topology) ChangeIP(h string) (oldIP, newIP string, err error) {
	oldIP, newIP, err = t.Lab.ChangeIP(t.hosts[h])
	if err == nil {
		t.mu.Lock()
		t.ipHost[newIP] = h
		t.mu.Unlock()
	}
	return oldIP, newIP, err
}

func (t *Topology) hostDir(h, what string) string { return filepath.Join(t.Dir, h, what) }

// SentinelConfPath is the config file of the sentinel on host h.
func (t *Topology) SentinelConfPath(h string) string {
	return filepath.Join(t.hostDir(h, "sentinel"), "sentinel.conf")
}

// SentinelDir is the config directory of the sentinel on host h.
func (t *Topology) SentinelDir(h string) string { return t.hostDir(h, "sentinel") }

// IsGo reports whether the sentinel on host h is gosentinel.
func (t *Topology) IsGo(h string) bool {
	for i, s := range t.SentinelHosts {
		if s == h {
			return t.Kind.goOn(i)
		}
	}
	return false
}

// RedisBin is the data node's server binary: valkey-server for the
// valkey kinds, redis-server otherwise.
func (t *Topology) RedisBin() string {
	if t.Kind.valkey() {
		return "valkey-server"
	}
	return "redis-server"
}

// SentinelBin is the sentinel binary of host h: gosentinel,
// valkey-sentinel or redis-sentinel, as the kind says.
func (t *Topology) SentinelBin(h string) string {
	switch {
	case t.IsGo(h):
		return t.GoBin
	case t.Kind.valkey():
		return "valkey-sentinel"
	}
	return "redis-sentinel"
}

// addrFor is how config files name host h: its name with Hostnames, its IP otherwise.
func (t *Topology) addrFor(h string) string {
	if t.Setup.Hostnames {
		return h
	}
	return t.origIP[h]
}

func (t *Topology) redisConf(h string) string {
	var b strings.Builder
	dir := t.hostDir(h, "redis")
	b.WriteString(t.listenLines(RedisPort))
	fmt.Fprintf(&b, "bind * -::*\nprotected-mode no\ndaemonize no\nlogfile \"\"\ndir %q\n", dir)
	aof := "no"
	if t.Setup.AOF {
		aof = "yes"
	}
	fmt.Fprintf(&b, "save \"\"\nappendonly %s\nrepl-diskless-sync-delay 0\n", aof)
	if h != t.RedisHosts[0] {
		fmt.Fprintf(&b, "replicaof %s\n", t.confAddr(t.RedisHosts[0], RedisPort))
	}
	if p, ok := t.Setup.Priority[h]; ok {
		fmt.Fprintf(&b, "replica-priority %d\n", p)
	}
	if t.Setup.MinReplicas > 0 {
		fmt.Fprintf(&b, "min-replicas-to-write %d\nmin-replicas-max-lag 10\n", t.Setup.MinReplicas)
	}
	if t.Setup.Hostnames {
		fmt.Fprintf(&b, "replica-announce-ip %s\n", h)
	}
	for _, l := range t.Setup.RedisConf {
		b.WriteString(l + "\n")
	}
	b.WriteString(t.Setup.Auth.redisLines())
	if t.Setup.RedisExtra != nil {
		b.WriteString(t.Setup.RedisExtra(t, h))
	}
	return b.String()
}

func (t *Topology) sentinelConf(h string) string {
	s := t.Setup
	var b strings.Builder
	b.WriteString(t.listenLines(SentinelPort))
	fmt.Fprintf(&b, "bind * -::*\nprotected-mode no\ndaemonize no\nlogfile \"\"\ndir %q\n", t.SentinelDir(h))
	if s.Hostnames {
		fmt.Fprintf(&b, "sentinel resolve-hostnames yes\nsentinel announce-hostnames yes\nsentinel announce-ip %s\n", h)
	}
	fmt.Fprintf(&b, "sentinel monitor %s %s %d\n", MasterName, t.confAddr(t.RedisHosts[0], RedisPort), s.Quorum)
	fmt.Fprintf(&b, "sentinel down-after-milliseconds %s %d\n", MasterName, s.DownAfterMs)
	fmt.Fprintf(&b, "sentinel failover-timeout %s %d\n", MasterName, s.FailoverTimeoutMs)
	fmt.Fprintf(&b, "sentinel parallel-syncs %s %d\n", MasterName, s.ParallelSyncs)
	b.WriteString(s.Auth.sentinelLines())
	if s.SentinelExtra != nil {
		b.WriteString(s.SentinelExtra(t, h))
	}
	return b.String()
}

// StartRedis writes h's redis config (first time only: a restart reuses
// the file as the sentinels rewrote it) and starts redis-server there.
func (t *Topology) StartRedis(h string) error {
	dir := t.hostDir(h, "redis")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("redis dir: %w", err)
	}
	conf := filepath.Join(dir, "redis.conf")
	if _, err := os.Stat(conf); err != nil {
		if err := os.WriteFile(conf, []byte(t.redisConf(h)), 0o644); err != nil {
			return fmt.Errorf("redis config: %w", err)
		}
	}
	return t.start(h, "redis-"+h, []string{t.RedisBin(), conf}, dir, netlab.ProcSpec{})
}

// StartSentinel writes h's sentinel config (first time only) and starts
// the sentinel kind chosen for h. Its config directory is bind-mounted
// onto itself in the process's mount namespace, so it can be made
// read-only later, or mounted as a small tmpfs when Setup.SentinelTmpfs is set.
func (t *Topology) StartSentinel(h string) error {
	dir := t.SentinelDir(h)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sentinel dir: %w", err)
	}
	conf := t.SentinelConfPath(h)
	spec := netlab.ProcSpec{BindSelf: []string{dir}}
	if t.Setup.ConfFileBind {
		spec.BindFiles = []string{conf}
	}
	if t.Setup.SentinelTmpfs != "" {
		// The tmpfs hides the directory's content: keep the file next to it
		// and copy it in with a shell before exec.
		spec = netlab.ProcSpec{TmpfsDirs: []string{dir}, TmpfsSize: t.Setup.SentinelTmpfs}
	}
	if _, err := os.Stat(conf); err != nil {
		if err := os.WriteFile(conf, []byte(t.sentinelConf(h)), 0o644); err != nil {
			return fmt.Errorf("sentinel config: %w", err)
		}
	}
	bin := t.SentinelBin(h)
	argv := []string{bin, conf}
	if t.Setup.SentinelTmpfs != "" {
		seed := filepath.Join(t.hostDir(h, ""), "sentinel.conf.seed")
		data, err := os.ReadFile(conf)
		if err != nil {
			return fmt.Errorf("sentinel config: %w", err)
		}
		if err := os.WriteFile(seed, data, 0o644); err != nil {
			return fmt.Errorf("sentinel config: %w", err)
		}
		argv = []string{"/bin/sh", "-c", `cp "$1" "$2" && exec "$3" "$2"`, "sh", seed, conf, bin}
	}
	return t.start(h, "sentinel-"+h, argv, t.hostDir(h, ""), spec)
}

func (t *Topology) start(h, name string, argv []string, dir string, spec netlab.ProcSpec) error {
	spec.Name = name
	spec.Argv = argv
	spec.Dir = dir
	p, err := t.hosts[h].Start(spec)
	if err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	t.mu.Lock()
	t.procs[name] = p
	delete(t.stopped, name)
	t.mu.Unlock()
	return nil
}

// Proc returns the process "redis-<h>" or "sentinel-<h>" (nil if never started).
func (t *Topology) Proc(name string) *netlab.Proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.procs[name]
}

// Kill SIGKILLs the named process and waits for it; it is not a crash.
func (t *Topology) Kill(name string) error {
	p := t.Proc(name)
	if p == nil {
		return fmt.Errorf("kill %s: no such process", name)
	}
	t.mu.Lock()
	t.expected[p] = true
	delete(t.stopped, name)
	t.mu.Unlock()
	if err := p.Kill(); err != nil {
		return fmt.Errorf("kill %s: %w", name, err)
	}
	return nil
}

// Stop sends SIGSTOP to the named process.
func (t *Topology) Stop(name string) error {
	p := t.Proc(name)
	if p == nil {
		return fmt.Errorf("stop %s: no such process", name)
	}
	t.mu.Lock()
	t.stopped[name] = true
	t.mu.Unlock()
	return p.Signal(syscall.SIGSTOP)
}

// Cont sends SIGCONT to the named process.
func (t *Topology) Cont(name string) error {
	p := t.Proc(name)
	if p == nil {
		return fmt.Errorf("cont %s: no such process", name)
	}
	err := p.Signal(syscall.SIGCONT)
	t.mu.Lock()
	delete(t.stopped, name)
	t.mu.Unlock()
	return err
}

// live reports whether the named process runs and is not stopped.
func (t *Topology) live(name string) bool {
	p := t.Proc(name)
	if p == nil {
		return false
	}
	if done, _ := p.Exited(); done {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.stopped[name]
}

// Crashes names the processes that exited without being killed on purpose.
func (t *Topology) Crashes() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for name, p := range t.procs {
		if done, code := p.Exited(); done && !t.expected[p] {
			out = append(out, fmt.Sprintf("%s (exit %d)", name, code))
		}
	}
	sort.Strings(out)
	return out
}

// ConfigFiles reads every sentinel's config file (from the host side; a
// tmpfs config directory is read from inside the process's mount namespace).
func (t *Topology) ConfigFiles(ctx context.Context) map[string][]byte {
	out := map[string][]byte{}
	for _, h := range t.SentinelHosts {
		if data, err := t.readSentinelConf(ctx, h); err == nil {
			out["sentinel-"+h] = data
		}
	}
	return out
}

func (t *Topology) readSentinelConf(ctx context.Context, h string) ([]byte, error) {
	if t.Setup.SentinelTmpfs == "" {
		return os.ReadFile(t.SentinelConfPath(h))
	}
	p := t.Proc("sentinel-" + h)
	if p == nil {
		return nil, fmt.Errorf("no sentinel on %s", h)
	}
	if done, _ := p.Exited(); done {
		return nil, fmt.Errorf("sentinel on %s exited", h)
	}
	return p.Exec(ctx, "cat", t.SentinelConfPath(h))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
