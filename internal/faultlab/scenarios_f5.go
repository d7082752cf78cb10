package faultlab

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// f5FakeHello is a hello for a sentinel that does not exist (a free
// address of the lab's subnet): a sentinel that accepted it from a peer
// whose certificate it should have refused would count a fourth sentinel.
func f5FakeHello(e *Env) string {
	ip, port, _ := strings.Cut(e.Top.RedisAddr("h1"), ":")
	return fmt.Sprintf("198.18.%d.250,%d,%s,0,%s,%s,%s,0", e.Lab.Index(), SentinelPort, strings.Repeat("f", 40), MasterName, ip, port)
}

// f5Probes sends, from c1, to every sentinel's TLS port and the master's:
// a plaintext command, then a fake hello and a command over TLS with a
// certificate of another CA and with an expired one of the lab CA. Each
// outcome is a note; the figures count the answers (commands served) and
// the probes.
func f5Probes(ctx context.Context, e *Env) error {
	base := e.Top.Host("c1").DialContext
	hello := []string{"PUBLISH", "__sentinel__:hello", f5FakeHello(e)}
	type target struct{ name, addr string }
	var targets []target
	for _, h := range e.Top.SentinelHosts {
		targets = append(targets, target{"sentinel-" + h, e.Top.SentinelAddr(h)})
	}
	targets = append(targets, target{"redis-h1 (master)", e.Top.RedisAddr("h1")})
	peers := []struct {
		figure string
		cfg    *tls.Config
	}{{"wrongca", e.Top.tls.withCert(e.Top.tls.WrongCA)}, {"expired", e.Top.tls.withCert(e.Top.tls.Expired)}}
	answered, inHandshake := map[string]int{}, map[string]int{}
	for _, tg := range targets {
		cmd := []string{"SENTINEL", "MASTERS"}
		if strings.HasPrefix(tg.name, "redis") {
			cmd = []string{"PING"}
		}
		o, err := plainProbe(ctx, base, tg.addr, cmd)
		if err != nil {
			return fmt.Errorf("plaintext probe of %s: %w", tg.name, err)
		}
		e.Note("F5 %s: plaintext %s → %s", tg.name, strings.Join(cmd, " "), o)
		if o.Answered() {
			answered["plaintext"]++
		}
		for _, p := range peers {
			o, err := tlsProbe(ctx, base, tg.addr, p.cfg, hello, cmd)
			if err != nil {
				return fmt.Errorf("%s probe of %s: %w", p.figure, tg.name, err)
			}
			e.Note("F5 %s: %s certificate, PUBLISH hello + %s → %s", tg.name, p.figure, strings.Join(cmd, " "), o)
			if o.Answered() {
				answered[p.figure]++
			}
			if o.Handshake != nil {
				inHandshake[p.figure]++
			}
		}
	}
	e.Set("probe_targets", float64(len(targets)))
	for _, f := range []string{"plaintext", "wrongca", "expired"} {
		e.Set(f+"_answered", float64(answered[f]))
	}
	// Where the bad certificates were refused: in the client's handshake
	// (TLS 1.2, or a server that checks before its Finished) or on the
	// first read after it (TLS 1.3 checks the client's certificate after
	// the client has finished): recorded, not a criterion.
	e.Set("wrongca_refused_in_handshake", float64(inHandshake["wrongca"]))
	e.Set("expired_refused_in_handshake", float64(inHandshake["expired"]))
	return nil
}

// f5Alive checks, over TLS with the lab certificate, that every sentinel
// still runs and answers PING, and that none counts a sentinel beyond the
// real ones (the fake hello had no effect).
func f5Alive(ctx context.Context, e *Env) {
	alive, extra := 0, 0
	for _, h := range e.Top.SentinelHosts {
		_, err := e.Top.SentinelDo(ctx, h, "PING")
		if e.Top.live("sentinel-"+h) && err == nil {
			alive++
		} else {
			e.Note("F5 sentinel-%s after the probes: running %v, PING %v", h, e.Top.live("sentinel-"+h), err)
		}
		if m, err := e.Top.SentinelMaster(ctx, h); err == nil {
			if n, _ := strconv.Atoi(m["num-other-sentinels"]); n != len(e.Top.SentinelHosts)-1 {
				extra++
				e.Note("F5 sentinel-%s knows %d other sentinels after the fake hellos", h, n)
			}
		}
	}
	e.Set("alive_after_probes", float64(alive))
	e.Set("fake_hello_effects", float64(extra))
}

// f5Announce checks what the sentinels announce: the hellos they publish
// on the master's __sentinel__:hello channel (heard over TLS from obs for
// up to 3 hello periods) and every entry of SENTINEL SENTINELS must name
// the sentinel's own IP and the TLS port (port 0 would mean the plain
// port was announced), and the master at its TLS port.
func f5Announce(ctx context.Context, e *Env) {
	t := e.Top
	dial := t.Dialer("obs")
	c := redis.NewClient(&redis.Options{Addr: t.RedisAddr("h1"), Protocol: 2, MaxRetries: -1,
		DialTimeout: time.Second, ReadTimeout: time.Second, Dialer: dial})
	defer c.Close()
	ps := c.Subscribe(ctx, "__sentinel__:hello")
	defer ps.Close()
	heard := map[string]bool{}
	bad := 0
	deadline := time.Now().Add(6500 * time.Millisecond)
	for len(heard) < len(t.SentinelHosts) && time.Now().Before(deadline) && ctx.Err() == nil {
		m, err := ps.ReceiveTimeout(ctx, time.Second)
		if err != nil {
			continue
		}
		msg, ok := m.(*redis.Message)
		if !ok {
			continue
		}
		f := strings.Split(msg.Payload, ",")
		if len(f) != 8 {
			bad++
			e.Note("F5 hello with %d fields: %q", len(f), msg.Payload)
			continue
		}
		h := t.HostOf(f[0])
		if !contains(t.SentinelHosts, h) || f[1] != strconv.Itoa(SentinelPort) || f[6] != strconv.Itoa(RedisPort) {
			bad++
			e.Note("F5 hello announces %s:%s (master port %s), want a sentinel host's IP and port %d", f[0], f[1], f[6], SentinelPort)
			continue
		}
		if !heard[h] {
			e.Note("F5 hello of sentinel-%s: %s:%s, master port %s", h, f[0], f[1], f[6])
		}
		heard[h] = true
	}
	e.Set("hello_senders", float64(len(heard)))
	e.Set("hello_bad_announce", float64(bad))
	entries, badEntries := 0, 0
	for _, h := range t.SentinelHosts {
		v, err := t.SentinelDo(ctx, h, "SENTINEL", "SENTINELS", MasterName)
		if err != nil {
			e.Note("F5 SENTINEL SENTINELS on %s: %v", h, err)
			continue
		}
		list, _ := v.([]any)
		for _, x := range list {
			m := flat(x)
			entries++
			if !contains(t.SentinelHosts, t.HostOf(m["ip"])) || m["port"] != strconv.Itoa(SentinelPort) {
				badEntries++
				e.Note("F5 SENTINEL SENTINELS on %s lists %s:%s", h, m["ip"], m["port"])
			}
		}
	}
	e.Set("sentinels_entries", float64(entries))
	e.Set("sentinels_bad_port", float64(badEntries))
}

// rogueSentinel is a TLS listener on obs posing as a sentinel with a bad
// server certificate (F5's outgoing direction): a sentinel that learns it
// from a hello must refuse it in the handshake. It records, per
// connecting host, how each handshake ended and whether any command got
// through.
type rogueSentinel struct {
	ln        net.Listener
	mu        sync.Mutex
	dialers   map[string]bool   // sentinel hosts that connected
	completed int               // handshakes the client completed (it accepted the certificate)
	outcomes  map[string]string // first handshake error per host
	wg        sync.WaitGroup
}

// startRogue listens on obs at port with cert.
func startRogue(e *Env, port int, cert tls.Certificate) (*rogueSentinel, error) {
	ln, err := e.Top.Host("obs").Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		return nil, err
	}
	r := &rogueSentinel{ln: tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}),
		dialers: map[string]bool{}, outcomes: map[string]string{}}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			c, err := r.ln.Accept()
			if err != nil {
				return
			}
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(probeTimeout))
				herr := c.(*tls.Conn).Handshake()
				ip, _, _ := net.SplitHostPort(c.RemoteAddr().String())
				h := e.Top.HostOf(ip)
				r.mu.Lock()
				defer r.mu.Unlock()
				r.dialers[h] = true
				if herr == nil {
					r.completed++
					r.outcomes[h] = "handshake completed (certificate accepted)"
				} else if r.outcomes[h] == "" {
					r.outcomes[h] = herr.Error()
				}
			}()
		}
	}()
	return r, nil
}

// stop closes the listener and waits for the connections in progress.
func (r *rogueSentinel) stop() {
	r.ln.Close()
	r.wg.Wait()
}

// f5Rogues announces two rogue sentinels on obs, one serving a wrong-CA
// certificate and one an expired certificate of the lab CA, with a hello
// the lab client publishes on the master (after the failover, so the
// extra sentinels the peers now count cannot change the election), and
// waits until every sentinel has tried to link to both or 6 s passed.
func f5Rogues(ctx context.Context, e *Env, master string) error {
	t := e.Top
	m, err := t.SentinelMaster(ctx, t.SentinelHosts[0])
	if err != nil {
		return fmt.Errorf("SENTINEL MASTER: %w", err)
	}
	ip, port, _ := strings.Cut(t.RedisAddr(master), ":")
	rogues := []struct {
		name string
		port int
		cert tls.Certificate
	}{{"wrongca", SentinelPort, t.tls.WrongCA}, {"expired", SentinelPort + 1, t.tls.Expired}}
	var rs []*rogueSentinel
	defer func() {
		for _, r := range rs {
			r.stop()
		}
	}()
	obsIP := t.Host("obs").IP()
	for i, rg := range rogues {
		r, err := startRogue(e, rg.port, rg.cert)
		if err != nil {
			return fmt.Errorf("rogue %s: %w", rg.name, err)
		}
		rs = append(rs, r)
		// Sentinel epoch 0 (no effect on the peers' current epoch), the
		// master as it is now with its config epoch: the hello only adds
		// a sentinel.
		hello := fmt.Sprintf("%s,%d,%s,0,%s,%s,%s,%s", obsIP, rg.port, strings.Repeat(strconv.Itoa(i+1), 40), MasterName, ip, port, m["config-epoch"])
		if _, err := t.RedisDo(ctx, master, "PUBLISH", "__sentinel__:hello", hello); err != nil {
			return fmt.Errorf("publish the %s rogue's hello: %w", rg.name, err)
		}
	}
	deadline := time.Now().Add(6 * time.Second)
	for time.Now().Before(deadline) {
		all := true
		for _, r := range rs {
			r.mu.Lock()
			all = all && len(r.dialers) >= len(t.SentinelHosts)
			r.mu.Unlock()
		}
		if all {
			break
		}
		if err := e.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	for i, r := range rs {
		r.stop()
		name := rogues[i].name
		e.Set("rogue_"+name+"_dialers", float64(len(r.dialers)))
		e.Set("rogue_"+name+"_accepted", float64(r.completed))
		for _, h := range t.SentinelHosts {
			if o, ok := r.outcomes[h]; ok {
				e.Note("F5 sentinel-%s linking to a rogue sentinel with a %s certificate: %s", h, name, o)
			} else {
				e.Note("F5 sentinel-%s never linked to the rogue sentinel with a %s certificate", h, name)
			}
		}
	}
	rs = nil
	alive := 0
	for _, h := range t.SentinelHosts {
		if _, err := t.SentinelDo(ctx, h, "PING"); err == nil && t.live("sentinel-"+h) {
			alive++
		}
	}
	e.Set("alive_after_rogues", float64(alive))
	return nil
}

func init() {
	n := 3 // T3
	register(&Scenario{
		ID: "F5", Title: "TLS only, bad peers", ExpectFailover: true,
		Setup: Setup{TLS: true},
		Fault: "every redis-server and sentinel on TLS only (port 0, tls-port, tls-auth-clients yes, tls-replication yes; lab CA), writers/sampler over TLS; " +
			"from c1 to each sentinel and the master: a plaintext command, then PUBLISH of a fake hello + a command over TLS with a wrong-CA and with an expired certificate; " +
			"SIGKILL the master; after the failover, two rogue sentinels on obs (wrong-CA and expired server certificates) announced by a hello on the new master",
		Expected: "no command answered to a bad peer, no crash, no fake sentinel counted; hellos and SENTINEL SENTINELS announce the TLS port; failover over TLS as in A1 (RTO_switch <= 7 s); every sentinel links to the rogues and refuses their certificates",
		Schedule: func(ctx context.Context, e *Env) error {
			f5Announce(ctx, e)
			if err := f5Probes(ctx, e); err != nil {
				return err
			}
			// Give a sentinel that accepted the fake hello one hello
			// period to count the fake sentinel.
			if err := e.Sleep(ctx, 2500*time.Millisecond); err != nil {
				return err
			}
			f5Alive(ctx, e)
			m, err := killMaster(ctx, e, "h1")
			e.Heal()
			if err != nil {
				return err
			}
			// The outgoing direction, once the failover is over.
			if _, err := e.WaitConverged(ctx, 20*time.Second); err != nil {
				return err
			}
			err = f5Rogues(ctx, e, m)
			e.Heal() // the rogue listeners are gone
			return err
		},
		Criteria: []Criterion{
			extraEquals("plaintext_answered", 0, "no plaintext command answered on a TLS port"),
			extraEquals("wrongca_answered", 0, "no command answered to a wrong-CA certificate"),
			extraEquals("expired_answered", 0, "no command answered to an expired certificate"),
			extraEquals("alive_after_probes", float64(n), "every sentinel alive and answering after the bad peers"),
			extraEquals("fake_hello_effects", 0, "no sentinel learned the bad peers' fake sentinel"),
			extraEquals("hello_senders", float64(n), "a hello heard from every sentinel"),
			extraEquals("hello_bad_announce", 0, "hellos announce the sentinel's IP and TLS port"),
			extraEquals("sentinels_bad_port", 0, "SENTINEL SENTINELS lists the TLS ports"),
			extraEquals("sentinels_entries", float64(n*(n-1)), "SENTINEL SENTINELS lists every peer"),
			extraEquals("rogue_wrongca_dialers", float64(n), "every sentinel linked to the wrong-CA rogue sentinel"),
			extraEquals("rogue_expired_dialers", float64(n), "every sentinel linked to the expired rogue sentinel"),
			extraEquals("rogue_wrongca_accepted", 0, "no sentinel accepted the wrong-CA server certificate"),
			extraEquals("rogue_expired_accepted", 0, "no sentinel accepted the expired server certificate"),
			extraEquals("alive_after_rogues", float64(n), "every sentinel alive and answering after the rogue peers"),
			rtoSwitchWithin(7), oneSwitchPerSentinel()},
	})
}
