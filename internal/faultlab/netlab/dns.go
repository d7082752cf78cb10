package netlab

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DNSServer is the lab's own DNS server (scenario E3: a slow resolver). It
// runs in the test process, on UDP port 53 of one lab host, and answers A
// queries for the lab's host names from the lab's table (so ChangeIP and
// SetResolvable apply), AAAA and other types for them with an empty
// NOERROR answer, and anything else with NXDOMAIN, each after the
// configured delay. While it runs, every host's hosts file lists localhost
// only and its resolv.conf names the server, so glibc (redis-server,
// redis-sentinel: nsswitch "hosts: files dns") and Go's resolver
// (gosentinel, cgo or not) both ask it.
//
// It is written with the standard library only (the module has no DNS
// package; the wire format needed — one question, one A record — is small).
type DNSServer struct {
	lab   *Lab
	host  *Host
	conn  net.PacketConn
	delay atomic.Int64 // nanoseconds
	n     atomic.Int64
	dn    atomic.Int64 // queries answered with a delay
	only  atomic.Value // map[string]bool: source IPs delayed (nil: all)
	wg    sync.WaitGroup
	once  sync.Once
}

// StartDNS starts the lab's DNS server on host h (port 53) and points every
// host's resolver at it. Stop it with DNSServer.Close (Lab.Close does).
func (l *Lab) StartDNS(h *Host) (*DNSServer, error) {
	if h == nil || h.lab != l {
		return nil, fmt.Errorf("netlab: StartDNS: host not in this lab")
	}
	var pc net.PacketConn
	err := inNetns(h.ns, func() error {
		var lerr error
		pc, lerr = net.ListenPacket("udp4", ":53")
		return lerr
	})
	if err != nil {
		return nil, fmt.Errorf("netlab: DNS server on %s: %w", h.Name, err)
	}
	d := &DNSServer{lab: l, host: h, conn: pc}
	l.mu.Lock()
	if l.closed || l.dns != nil {
		l.mu.Unlock()
		pc.Close()
		if l.closed {
			return nil, ErrClosed
		}
		return nil, errors.New("netlab: StartDNS: the lab already has a DNS server")
	}
	l.dns = d
	l.closers = append(l.closers, func() { d.Close() })
	err = l.writeResolverLocked()
	l.mu.Unlock()
	if err != nil {
		d.Close()
		return nil, err
	}
	d.wg.Add(1)
	go d.serve()
	l.log.Info("netlab: DNS server started", "host", h.Name, "ip", h.IP())
	return d, nil
}

// DNS returns the lab's DNS server (nil when StartDNS was not called).
func (l *Lab) DNS() *DNSServer {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dns
}

// SetDelay sets the delay of the answers from now on: to queries from the
// given hosts only, or to every query when none is given.
func (d *DNSServer) SetDelay(delay time.Duration, from ...*Host) {
	var only map[string]bool
	if len(from) > 0 {
		only = map[string]bool{}
		for _, h := range from {
			only[h.IP()] = true
		}
	}
	d.only.Store(only)
	d.delay.Store(int64(delay))
}

// Queries is the number of queries received so far.
func (d *DNSServer) Queries() int64 { return d.n.Load() }

// Delayed is the number of queries answered with a delay so far.
func (d *DNSServer) Delayed() int64 { return d.dn.Load() }

func (d *DNSServer) delayFor(from net.Addr) time.Duration {
	delay := time.Duration(d.delay.Load())
	if delay <= 0 {
		return 0
	}
	if only, _ := d.only.Load().(map[string]bool); only != nil {
		ua, ok := from.(*net.UDPAddr)
		if !ok || !only[ua.IP.String()] {
			return 0
		}
	}
	d.dn.Add(1)
	return delay
}

// Close stops the server and restores the hosts files and resolv.conf of
// every host (names from the hosts files again). It is idempotent.
func (d *DNSServer) Close() error {
	var err error
	d.once.Do(func() {
		d.conn.Close()
		d.wg.Wait()
		l := d.lab
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.dns == d {
			l.dns = nil
		}
		if !l.closed {
			err = l.writeResolverLocked()
		}
	})
	return err
}

func (d *DNSServer) serve() {
	defer d.wg.Done()
	var inflight sync.WaitGroup
	defer inflight.Wait()
	buf := make([]byte, 1500)
	for {
		n, from, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		d.n.Add(1)
		resp := d.answer(buf[:n])
		if resp == nil {
			continue
		}
		delay := d.delayFor(from)
		inflight.Add(1)
		go func() {
			defer inflight.Done()
			if delay > 0 {
				time.Sleep(delay)
			}
			_, _ = d.conn.WriteTo(resp, from)
		}()
	}
}

// DNS wire constants (RFC 1035).
const (
	dnsTypeA    = 1
	dnsClassIN  = 1
	dnsNXDomain = 3
	dnsFormErr  = 1
)

// answer builds the response to one query, or nil for a packet that is not
// a query worth answering.
func (d *DNSServer) answer(q []byte) []byte {
	if len(q) < 12 || q[2]&0x80 != 0 { // too short, or a response
		return nil
	}
	qd := binary.BigEndian.Uint16(q[4:6])
	name, end, ok := parseQName(q, 12)
	if qd != 1 || !ok || end+4 > len(q) {
		return dnsHeader(q, dnsFormErr, 0, nil)
	}
	qtype := binary.BigEndian.Uint16(q[end : end+2])
	question := q[12 : end+4]
	ip, found := d.lab.resolve(strings.ToLower(strings.TrimSuffix(name, ".")))
	if !found || name == "" {
		return dnsHeader(q, dnsNXDomain, 0, question)
	}
	if qtype != dnsTypeA {
		return dnsHeader(q, 0, 0, question) // the name exists, no record of that type
	}
	addr := net.ParseIP(ip).To4()
	resp := dnsHeader(q, 0, 1, question)
	rr := []byte{0xc0, 12, 0, dnsTypeA, 0, dnsClassIN, 0, 0, 0, 0, 0, 4} // pointer to the question name, TTL 0
	return append(append(resp, rr...), addr...)
}

// dnsHeader is a response header for query q (same id and RD bit) with
// the given rcode and answer count, followed by the question.
func dnsHeader(q []byte, rcode byte, answers uint16, question []byte) []byte {
	h := make([]byte, 12, 12+len(question)+16)
	copy(h[0:2], q[0:2])
	h[2] = 0x80 | 0x04 | q[2]&0x01 // QR, AA, RD copied
	h[3] = 0x80 | rcode            // RA
	if question != nil {
		binary.BigEndian.PutUint16(h[4:6], 1)
	}
	binary.BigEndian.PutUint16(h[6:8], answers)
	return append(h, question...)
}

// parseQName reads an uncompressed name at off; it returns the dotted name
// and the offset after it.
func parseQName(b []byte, off int) (string, int, bool) {
	var labels []string
	for {
		if off >= len(b) {
			return "", 0, false
		}
		n := int(b[off])
		off++
		if n == 0 {
			return strings.Join(labels, "."), off, true
		}
		if n > 63 || off+n > len(b) {
			return "", 0, false
		}
		labels = append(labels, string(b[off:off+n]))
		off += n
	}
}

// resolvConfLocked is every host's resolv.conf: the lab's DNS server when
// it runs (ndots:0, so a bare host name is asked as is, never with a
// search suffix first), else the host's own loopback, where nothing
// listens, so a name missing from the hosts file fails at once and no
// query ever leaves the lab. Callers hold l.mu.
func (l *Lab) resolvConfLocked() []byte {
	if l.dns != nil {
		return []byte(fmt.Sprintf("nameserver %s\noptions ndots:0 timeout:5 attempts:2\n", l.dns.host.IP()))
	}
	return []byte("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
}

// writeResolverLocked rewrites every host's hosts file and resolv.conf in
// place (same inode: `ip netns exec` bind-mounts them). Callers hold l.mu.
func (l *Lab) writeResolverLocked() error {
	if err := l.writeHostsLocked(); err != nil {
		return err
	}
	content := l.resolvConfLocked()
	for _, h := range l.hosts {
		p := filepath.Join("/etc/netns", h.ns, "resolv.conf")
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return fmt.Errorf("netlab: resolv.conf of %s: %w", h.Name, err)
		}
		_, werr := f.Write(content)
		cerr := f.Close()
		if werr != nil || cerr != nil {
			return fmt.Errorf("netlab: write resolv.conf of %s: %v %v", h.Name, werr, cerr)
		}
	}
	return nil
}
