package netlab

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// ErrNotRoot is returned by New when the process is not root: the lab needs
// network namespaces, nftables and mounts, and refuses rather than skipping.
var ErrNotRoot = errors.New("netlab: the fault lab needs root (network namespaces, nftables, mounts)")

// ErrClosed is returned by Lab methods called after Close.
var ErrClosed = errors.New("netlab: lab is closed")

// NamePrefix starts the name of every namespace a lab creates:
// gsl<N>-<host>, and gsl<N>-sw for the switch.
const NamePrefix = "gsl"

// maxIndex is the highest lab instance number (the third octet of 198.18.N.k).
const maxIndex = 254

// requiredTools are the binaries New checks for.
var requiredTools = []string{"ip", "nft", "unshare", "nsenter", "mount", "sh"}

// Options configure New.
type Options struct {
	// Index is the lab instance number N (1..254): namespaces are gsl<N>-*,
	// addresses 198.18.N.k. 0 picks a free one.
	Index int
	// Dir is the work directory for process logs and data; "" = a new
	// directory under os.TempDir(), removed by Close.
	Dir string
	// Log receives one line per fault and process; nil discards.
	Log *slog.Logger
	// Observers names hosts that Isolate never cuts off unless they are in
	// the isolated group themselves (the sampler's host "obs").
	Observers []string
}

// Lab is one running fault lab: a switch namespace and the hosts joined to it.
// Its methods are safe for concurrent use.
type Lab struct {
	index  int
	prefix string // "gsl<N>-"
	dir    string
	ownDir bool
	log    *slog.Logger
	lock   *os.File // flock on the lab index, held until Close
	spawn  *spawner

	observers map[string]bool

	mu         sync.Mutex
	closed     bool
	hosts      []*Host
	nextK      int // next host address octet
	procs      map[*Proc]bool
	faults     map[int]*fault
	nextFault  int
	unresolved map[string]bool // host names removed from every hosts file
	proxies    map[int]*proxy  // by fault id
	heals      []func() error  // process-level faults (read-only, full disk) for HealAll
	stopped    map[*Proc]bool  // SIGSTOPped through Proc.Signal
	dns        *DNSServer      // the lab's DNS server, when StartDNS was called
	closers    []func()        // in-process servers (DNS, port maps), stopped by Close
}

// checkRoot returns ErrNotRoot unless euid is 0.
func checkRoot(euid int) error {
	if euid != 0 {
		return fmt.Errorf("%w (running as uid %d)", ErrNotRoot, euid)
	}
	return nil
}

// checkTools reports the first missing binary.
func checkTools() error {
	for _, t := range requiredTools {
		if _, err := exec.LookPath(t); err != nil {
			return fmt.Errorf("netlab: %s not found (install iproute2, nftables, util-linux; scripts/deps.sh does): %w", t, err)
		}
	}
	return nil
}

// New checks root and tools, claims a lab index, removes whatever a crashed
// run left under that index, and creates the switch namespace.
func New(ctx context.Context, opts Options) (*Lab, error) {
	if err := checkRoot(os.Geteuid()); err != nil {
		return nil, err
	}
	if err := checkTools(); err != nil {
		return nil, err
	}
	if opts.Index < 0 || opts.Index > maxIndex {
		return nil, fmt.Errorf("netlab: index %d out of range 1..%d", opts.Index, maxIndex)
	}
	idx, lock, err := claimIndex(opts.Index)
	if err != nil {
		return nil, err
	}
	l := &Lab{
		index: idx, prefix: fmt.Sprintf("%s%d-", NamePrefix, idx), lock: lock,
		log: opts.Log, nextK: 1, procs: map[*Proc]bool{}, faults: map[int]*fault{},
		unresolved: map[string]bool{}, spawn: newSpawner(), proxies: map[int]*proxy{}, stopped: map[*Proc]bool{}, observers: map[string]bool{},
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	for _, o := range opts.Observers {
		l.observers[o] = true
	}
	// Anything under our index is stale: its owner no longer holds the lock.
	if err := CleanupStale(l.prefix); err != nil {
		l.abort()
		return nil, err
	}
	l.dir = opts.Dir
	if l.dir == "" {
		d, err := os.MkdirTemp("", "netlab-"+strings.TrimSuffix(l.prefix, "-")+"-")
		if err != nil {
			l.abort()
			return nil, fmt.Errorf("netlab: work dir: %w", err)
		}
		l.dir, l.ownDir = d, true
	} else if err := os.MkdirAll(l.dir, 0o755); err != nil {
		l.abort()
		return nil, fmt.Errorf("netlab: work dir: %w", err)
	}
	sw := l.switchNS()
	steps := [][]string{
		{"ip", "netns", "add", sw},
		{"ip", "-n", sw, "link", "set", "lo", "up"},
		{"ip", "-n", sw, "link", "add", "br0", "type", "bridge"},
		{"ip", "-n", sw, "link", "set", "br0", "up"},
	}
	for _, s := range steps {
		if err := run(ctx, s...); err != nil {
			_ = l.Close()
			return nil, err
		}
	}
	l.log.Info("netlab: lab created", "index", idx, "switch", sw, "dir", l.dir)
	return l, nil
}

// Index is the lab instance number N.
func (l *Lab) Index() int { return l.index }

// Dir is the lab's work directory.
func (l *Lab) Dir() string { return l.dir }

// Prefix is the name prefix of the lab's namespaces ("gsl<N>-").
func (l *Lab) Prefix() string { return l.prefix }

func (l *Lab) switchNS() string { return l.prefix + "sw" }

// lockDir holds one flock file per lab index, so concurrent labs (several
// test binaries at once) never pick the same N.
const lockDir = "/run/gosentinel-netlab"

// claimIndex locks the index file for want (or the first free one when want is 0).
func claimIndex(want int) (int, *os.File, error) {
	if err := os.MkdirAll(lockDir, 0o755); err != nil {
		return 0, nil, fmt.Errorf("netlab: lock dir: %w", err)
	}
	try := func(n int) (*os.File, error) {
		f, err := os.OpenFile(filepath.Join(lockDir, fmt.Sprintf("%d.lock", n)), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	if want != 0 {
		f, err := try(want)
		if err != nil {
			return 0, nil, fmt.Errorf("netlab: lab index %d is in use by another lab: %w", want, err)
		}
		return want, f, nil
	}
	for n := 1; n <= maxIndex; n++ {
		if f, err := try(n); err == nil {
			return n, f, nil
		}
	}
	return 0, nil, fmt.Errorf("netlab: no free lab index in 1..%d", maxIndex)
}

// abort undoes a half-made New.
func (l *Lab) abort() {
	l.spawn.stop()
	l.releaseLock()
}

func (l *Lab) releaseLock() {
	if l.lock != nil {
		l.lock.Close() // closing drops the flock
		l.lock = nil
	}
}

// Hosts returns the hosts in the order they were added.
func (l *Lab) Hosts() []*Host {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*Host(nil), l.hosts...)
}

// Host returns the host with that name, or nil.
func (l *Lab) Host(name string) *Host {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, h := range l.hosts {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// Close kills every process (SIGKILL, by PID and process group), stops the
// proxies, deletes every namespace and /etc/netns directory of the lab, and
// releases its index. It is idempotent; it returns the first error but
// always tries every step.
func (l *Lab) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	procs := make([]*Proc, 0, len(l.procs))
	for p := range l.procs {
		procs = append(procs, p)
	}
	proxies := l.proxies
	l.proxies = map[int]*proxy{}
	l.faults = map[int]*fault{}
	closers := l.closers
	l.closers = nil
	l.mu.Unlock()

	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	// SIGKILL every process first, then wait for each: one by one, a lab
	// with hundreds of processes (B9L: 600 redis-servers) spent minutes
	// in kill → reap round trips under load.
	for _, p := range procs {
		p.signalKill()
	}
	for _, p := range procs {
		keep(p.Kill())
	}
	for _, px := range proxies {
		px.close()
	}
	for _, c := range closers {
		c()
	}
	l.spawn.stop()
	keep(CleanupStale(l.prefix))
	if l.ownDir {
		keep(os.RemoveAll(l.dir))
	}
	l.releaseLock()
	l.log.Info("netlab: lab closed", "index", l.index)
	return first
}

// CleanupStale removes every network namespace whose name starts with
// prefix: it SIGKILLs the processes inside (ip netns pids), deletes the
// namespace (its veths go with it) and its /etc/netns/<ns> directory. Use a
// lab's own prefix ("gsl7-"); "gsl" would remove every lab on the machine,
// including running ones.
func CleanupStale(prefix string) error {
	if prefix == "" {
		return errors.New("netlab: CleanupStale needs a non-empty prefix")
	}
	names, err := listNetns()
	if err != nil {
		return err
	}
	var first error
	for _, ns := range names {
		if !strings.HasPrefix(ns, prefix) {
			continue
		}
		killNetnsPids(ns)
		if err := run(context.Background(), "ip", "netns", "delete", ns); err != nil && first == nil {
			first = err
		}
	}
	// /etc/netns dirs of namespaces already gone.
	if ents, err := os.ReadDir("/etc/netns"); err == nil {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), prefix) {
				if err := os.RemoveAll(filepath.Join("/etc/netns", e.Name())); err != nil && first == nil {
					first = fmt.Errorf("netlab: remove /etc/netns/%s: %w", e.Name(), err)
				}
			}
		}
		if ents, err := os.ReadDir("/etc/netns"); err == nil && len(ents) == 0 {
			_ = os.Remove("/etc/netns")
		}
	}
	return first
}

// listNetns returns the names under /run/netns (what `ip netns list` shows).
func listNetns() ([]string, error) {
	ents, err := os.ReadDir("/run/netns")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("netlab: list namespaces: %w", err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out, nil
}

// killNetnsPids SIGKILLs every process living in the namespace and waits
// (briefly) until they are gone so the namespace can really go away.
func killNetnsPids(ns string) {
	for range 50 {
		out, err := exec.Command("ip", "netns", "pids", ns).Output()
		if err != nil {
			return
		}
		n := 0
		for _, s := range strings.Fields(string(out)) {
			var pid int
			if _, err := fmt.Sscanf(s, "%d", &pid); err == nil && pid > 1 && pid != os.Getpid() {
				_ = unix.Kill(pid, unix.SIGKILL)
				n++
			}
		}
		if n == 0 {
			return
		}
		sleepBrief()
	}
}

// run executes a short admin command and wraps its output into the error.
func run(ctx context.Context, argv ...string) error {
	return runStdin(ctx, "", argv...)
}

// runStdin is run with stdin as the command's standard input.
func runStdin(ctx context.Context, stdin string, argv ...string) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("netlab: %s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
