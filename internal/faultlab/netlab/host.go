package netlab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Host is one lab host: a network namespace gsl<N>-<Name> with one veth
// (eth0) into the lab's bridge and one address 198.18.N.k/24.
type Host struct {
	// Name is the host's name, also its hostname in every hosts file.
	Name string

	lab       *Lab
	ns        string
	mu        sync.Mutex
	ip        string
	lastRules string // ruleset last loaded, guarded by lab.mu
}

var hostNameRE = regexp.MustCompile(`^[a-z][a-z0-9]{0,8}$`)

// AddHost creates a host: its namespace, a veth into the switch, its
// address, lo up, and its /etc/netns/<ns>/hosts (the hosts file of every
// host is rewritten to list every host). Names are short lowercase
// identifiers ("h1", "c1", "obs") because interface names are limited to
// 15 bytes.
func (l *Lab) AddHost(name string) (*Host, error) {
	hs, err := l.AddHosts(name)
	if err != nil {
		return nil, err
	}
	return hs[0], nil
}

// AddHosts adds several hosts as AddHost does, with the same addresses as
// AddHost called for each name in order, but makes their namespaces and
// links concurrently: every fork/exec costs 0.1–0.5 s on this shared
// machine under load, and one host is four of them. On error no host of
// the call is left.
func (l *Lab) AddHosts(names ...string) ([]*Host, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, ErrClosed
	}
	seen := map[string]bool{}
	for _, h := range l.hosts {
		seen[h.Name] = true
	}
	hs := make([]*Host, 0, len(names))
	for _, name := range names {
		if !hostNameRE.MatchString(name) || name == "sw" {
			l.mu.Unlock()
			return nil, fmt.Errorf("netlab: bad host name %q (want [a-z][a-z0-9]{0,8}, not \"sw\")", name)
		}
		if seen[name] {
			l.mu.Unlock()
			return nil, fmt.Errorf("netlab: host %q already exists", name)
		}
		seen[name] = true
	}
	if l.nextK+len(names)-1 > 254 {
		l.mu.Unlock()
		return nil, fmt.Errorf("netlab: out of addresses in 198.18.%d.0/24", l.index)
	}
	for _, name := range names {
		hs = append(hs, &Host{Name: name, lab: l, ns: l.prefix + name, ip: fmt.Sprintf("198.18.%d.%d", l.index, l.nextK)})
		l.nextK++
	}
	sw := l.switchNS()
	l.mu.Unlock()

	ctx := context.Background()
	deleteAll := func() {
		for _, h := range hs {
			_ = run(ctx, "ip", "netns", "delete", h.ns)
		}
	}
	errs := make([]error, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.makeHostNS(ctx, h, sw)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		deleteAll()
		return nil, err
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		deleteAll()
		return nil, ErrClosed
	}
	for _, h := range hs {
		dir := filepath.Join("/etc/netns", h.ns)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			deleteAll()
			return nil, fmt.Errorf("netlab: %w", err)
		}
		// A resolver pointing at the host's own loopback: a name missing
		// from the hosts file fails at once and no query ever leaves the
		// lab.
		if err := os.WriteFile(filepath.Join(dir, "resolv.conf"), l.resolvConfLocked(), 0o644); err != nil {
			deleteAll()
			return nil, fmt.Errorf("netlab: %w", err)
		}
	}
	l.hosts = append(l.hosts, hs...)
	if err := l.writeHostsLocked(); err != nil {
		return nil, err
	}
	// The base ruleset (conntrack on from the start, so cuts by connection
	// origin also see connections made before the cut), every new host at
	// once.
	errs = make([]error, len(hs))
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.applyLocked(h) // touches only h.lastRules
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, h := range hs {
		l.log.Info("netlab: host added", "host", h.Name, "ns", h.ns, "ip", h.ip)
	}
	return hs, nil
}

// makeHostNS creates h's namespace, its veth into the switch namespace sw,
// its address, and brings eth0 and lo up: three commands, the link steps
// batched (ip -batch stops at the first error). On error h's namespace is
// deleted.
func (l *Lab) makeHostNS(ctx context.Context, h *Host, sw string) error {
	peer := "v-" + h.Name
	steps := []struct {
		argv  []string
		stdin string
	}{
		{[]string{"ip", "netns", "add", h.ns}, ""},
		{[]string{"ip", "-n", sw, "-batch", "-"}, fmt.Sprintf("link add %s type veth peer name eth0 netns %s\nlink set %s master br0\nlink set %s up\n",
			peer, h.ns, peer, peer)},
		// IPv4 only: no link-local IPv6 path around the IPv4 fault rules
		// (disabled before eth0 comes up).
		{[]string{"ip", "netns", "exec", h.ns, "sh", "-c", "echo 1 > /proc/sys/net/ipv6/conf/eth0/disable_ipv6 && exec ip -batch -"},
			fmt.Sprintf("link set lo up\naddr add %s/24 dev eth0\nlink set eth0 up\n", h.ip)},
	}
	for _, s := range steps {
		if err := runStdin(ctx, s.stdin, s.argv...); err != nil {
			_ = run(ctx, "ip", "netns", "delete", h.ns)
			return err
		}
	}
	return nil
}

// NS is the host's network namespace name (gsl<N>-<Name>).
func (h *Host) NS() string { return h.ns }

// IP is the host's current address (it changes after Lab.ChangeIP).
func (h *Host) IP() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ip
}

func (h *Host) setIP(ip string) {
	h.mu.Lock()
	h.ip = ip
	h.mu.Unlock()
}

// Addr is "IP:port" with the host's current address.
func (h *Host) Addr(port int) string { return net.JoinHostPort(h.IP(), strconv.Itoa(port)) }

// Exec runs a short command inside the host's network namespace (with the
// host's /etc/hosts) and returns its combined output.
func (h *Host) Exec(ctx context.Context, argv ...string) ([]byte, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("netlab: Exec on %s: empty command", h.Name)
	}
	args := append([]string{"netns", "exec", h.ns}, argv...)
	out, err := commandContext(ctx, "ip", args...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("netlab: exec on %s: %s: %w", h.Name, strings.Join(argv, " "), err)
	}
	return out, nil
}

// hostsContentLocked renders the hosts file every host sees: localhost plus one line
// per resolvable host.
func (l *Lab) hostsContentLocked() []byte {
	var b strings.Builder
	b.WriteString("# written by gosentinel netlab; rewritten in place\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n")
	if l.dns != nil {
		return []byte(b.String()) // names come from the lab's DNS server (dns.go)
	}
	for _, h := range l.hosts {
		if l.unresolved[h.Name] {
			continue
		}
		fmt.Fprintf(&b, "%s\t%s\n", h.IP(), h.Name)
	}
	return []byte(b.String())
}

// writeHostsLocked rewrites every host's hosts file IN PLACE (same inode):
// `ip netns exec` bind-mounts the file over /etc/hosts of every process it
// starts, so replacing it by rename would leave running processes on the
// old inode.
func (l *Lab) writeHostsLocked() error {
	content := l.hostsContentLocked()
	for _, h := range l.hosts {
		p := filepath.Join("/etc/netns", h.ns, "hosts")
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return fmt.Errorf("netlab: hosts file of %s: %w", h.Name, err)
		}
		_, werr := f.Write(content)
		cerr := f.Close()
		if werr != nil || cerr != nil {
			return fmt.Errorf("netlab: write hosts file of %s: %v %v", h.Name, werr, cerr)
		}
	}
	return nil
}

// resolve maps a host name to its current IP as the lab's hosts files do
// (so an unresolvable host does not resolve here either).
func (l *Lab) resolve(name string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if name == "localhost" {
		return "127.0.0.1", true
	}
	for _, h := range l.hosts {
		if h.Name == name && !l.unresolved[name] {
			return h.IP(), true
		}
	}
	return "", false
}

func sleepBrief() { time.Sleep(20 * time.Millisecond) }
