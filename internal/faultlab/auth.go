package faultlab

import (
	"fmt"
	"strconv"
	"strings"
)

// AuthSetup puts passwords and ACL users on the redis nodes and on the
// sentinels (scenarios F1–F3). Every field is optional; the writers, the
// sampler and the runner's observer authenticate with RedisPass and
// SentinelRequirePass as the default user.
type AuthSetup struct {
	// RedisPass is requirepass (and masterauth, for replication) on every
	// redis node.
	RedisPass string
	// SentinelUser and SentinelUserPass are an ACL user on every redis node
	// that the sentinels log in as (sentinel auth-user / auth-pass);
	// SentinelACL are its rules (default "allkeys allchannels +@all").
	SentinelUser, SentinelUserPass, SentinelACL string
	// SentinelRequirePass is requirepass on every sentinel.
	SentinelRequirePass string
	// PeerUser and PeerPass are an ACL user on every sentinel that the
	// sentinels log in to each other as (sentinel sentinel-user /
	// sentinel-pass).
	PeerUser, PeerPass string
}

// Secrets lists the passwords of the setup (none are allowed in a log).
func (a AuthSetup) Secrets() []string {
	var out []string
	for _, s := range []string{a.RedisPass, a.SentinelUserPass, a.SentinelRequirePass, a.PeerPass} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (a AuthSetup) redisLines() string {
	var b strings.Builder
	if a.RedisPass != "" {
		fmt.Fprintf(&b, "requirepass %s\nmasterauth %s\n", a.RedisPass, a.RedisPass)
	}
	if a.SentinelUser != "" {
		acl := a.SentinelACL
		if acl == "" {
			acl = "allkeys allchannels +@all"
		}
		fmt.Fprintf(&b, "user %s on >%s %s\n", a.SentinelUser, a.SentinelUserPass, acl)
	}
	return b.String()
}

// sentinelLines follow the monitor line (auth-user/auth-pass name the master).
func (a AuthSetup) sentinelLines() string {
	var b strings.Builder
	if a.SentinelUser != "" {
		fmt.Fprintf(&b, "sentinel auth-user %s %s\nsentinel auth-pass %s %s\n", MasterName, a.SentinelUser, MasterName, a.SentinelUserPass)
	}
	if a.SentinelRequirePass != "" {
		fmt.Fprintf(&b, "requirepass %s\n", a.SentinelRequirePass)
	}
	if a.PeerUser != "" {
		fmt.Fprintf(&b, "user %s on >%s allkeys allchannels +@all\nsentinel sentinel-user %s\nsentinel sentinel-pass %s\n",
			a.PeerUser, a.PeerPass, a.PeerUser, a.PeerPass)
	}
	return b.String()
}

// Announce makes the node on host h at port (RedisPort or SentinelPort)
// known to every other node as ip:announcedPort (E4): config files name it
// so, and HostOf and Aliases map it back. Call it from Setup.Prepare.
func (t *Topology) Announce(h string, port int, ip string, announcedPort int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.announced == nil {
		t.announced = map[string]string{}
	}
	t.announced[h+":"+strconv.Itoa(port)] = ip + ":" + strconv.Itoa(announcedPort)
}

// announcedAddr is what host h's node at port announces ("" if nothing
// special).
func (t *Topology) announcedAddr(h string, port int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.announced[h+":"+strconv.Itoa(port)]
}

// confAddr is "host port" as config files name the node on h at port: the
// announced address, the host name with Hostnames, its IP otherwise.
func (t *Topology) confAddr(h string, port int) string {
	if a := t.announcedAddr(h, port); a != "" {
		ip, p, _ := strings.Cut(a, ":")
		return ip + " " + p
	}
	return fmt.Sprintf("%s %d", t.addrFor(h), port)
}

// ClientSentinelAddr is the address clients are given for the sentinel on
// host h: the announced one when it announces another.
func (t *Topology) ClientSentinelAddr(h string) string {
	if a := t.announcedAddr(h, SentinelPort); a != "" {
		return a
	}
	return t.SentinelAddr(h)
}

// AddHost adds a host to the topology's lab from Setup.Prepare (a NAT box,
// a DNS server's host): it is never a redis or sentinel host.
func (t *Topology) AddHost(name string) error {
	h, err := t.Lab.AddHost(name)
	if err != nil {
		return fmt.Errorf("add host %s: %w", name, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hosts[name] = h
	t.ipHost[h.IP()] = name
	t.origIP[name] = h.IP()
	return nil
}
