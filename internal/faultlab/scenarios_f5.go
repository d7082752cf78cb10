package faultlab

import (
	"context"
	"crypto/tls"
	"fmt"
	"strconv"
	"strings"
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

func init() {
	n := 3 // T3
	register(&Scenario{
		ID: "F5", Title: "TLS only, bad peers", ExpectFailover: true,
		Setup: Setup{TLS: true},
		Fault: "every redis-server and sentinel on TLS only (port 0, tls-port, tls-auth-clients yes, tls-replication yes; lab CA), writers/sampler over TLS; " +
			"from c1 to each sentinel and the master: a plaintext command, then PUBLISH of a fake hello + a command over TLS with a wrong-CA and with an expired certificate; then SIGKILL the master",
		Expected: "handshake refused / no reply to every bad peer, no crash, no fake sentinel; hellos and SENTINEL SENTINELS announce the TLS port; failover over TLS as in A1",
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
			_, err := killMaster(ctx, e, "h1")
			e.Heal()
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
			rtoSwitchWithin(7), oneSwitchPerSentinel()},
	})
}
