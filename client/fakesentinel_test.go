package client

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// fakeSentinel is a tiny RESP server that answers the Sentinel commands the
// client sends, with answers the test controls (to model lying or lagging
// sentinels without waiting for a real failover).
type fakeSentinel struct {
	ln net.Listener

	mu        sync.Mutex
	master    string // "ip:port" or "" for unknown master
	epoch     int64
	replicas  []map[string]string
	blackhole bool          // accept and never answer
	password  string        // when set, AUTH must match before any other command
	queries   int           // GET-MASTER-ADDR-BY-NAME count
	delay     time.Duration // answers are computed on arrival and sent this much later
	peers     []string      // "ip:port" listed by SENTINEL SENTINELS
	// held, when set, holds the next batch that carries a
	// GET-MASTER-ADDR-BY-NAME: it is signalled on held and answered
	// (with the answers computed then) once release is closed.
	held    chan struct{}
	release chan struct{}
	subs    []net.Conn
	conns   map[net.Conn]bool
	wg      sync.WaitGroup
}

func startFakeSentinel(t *testing.T, master string, epoch int64) *fakeSentinel {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	return serveFakeSentinel(t, ln, master, epoch)
}

// serveFakeSentinel runs a fake sentinel on ln (e.g. a TLS listener).
func serveFakeSentinel(t *testing.T, ln net.Listener, master string, epoch int64) *fakeSentinel {
	t.Helper()
	f := &fakeSentinel{ln: ln, master: master, epoch: epoch, conns: map[net.Conn]bool{}}
	f.wg.Add(1)
	go f.serve()
	t.Cleanup(f.close)
	return f
}

func (f *fakeSentinel) addr() string { return f.ln.Addr().String() }

func (f *fakeSentinel) set(master string, epoch int64) {
	f.mu.Lock()
	f.master, f.epoch = master, epoch
	f.mu.Unlock()
}

// setDelay makes the sentinel answer every command d late.
func (f *fakeSentinel) setDelay(d time.Duration) {
	f.mu.Lock()
	f.delay = d
	f.mu.Unlock()
}

// holdNextQuery makes the next GET-MASTER-ADDR-BY-NAME wait: held is
// closed when it arrived, and it is answered (the answer computed then)
// when release is called.
func (f *fakeSentinel) holdNextQuery() (held <-chan struct{}, release func()) {
	h, rel := make(chan struct{}), make(chan struct{})
	f.mu.Lock()
	f.held, f.release = h, rel
	f.mu.Unlock()
	var once sync.Once
	return h, func() { once.Do(func() { close(rel) }) }
}

// holdQuery waits for the release of a held GET-MASTER-ADDR-BY-NAME (see
// holdNextQuery).
func (f *fakeSentinel) holdQuery(args []string) {
	if len(args) < 2 || !strings.EqualFold(args[0], "SENTINEL") || !strings.EqualFold(args[1], "GET-MASTER-ADDR-BY-NAME") {
		return
	}
	f.mu.Lock()
	h, rel := f.held, f.release
	f.held, f.release = nil, nil
	f.mu.Unlock()
	if h == nil {
		return
	}
	close(h)
	<-rel
}

// setBlackhole makes the sentinel stop answering (it still reads the
// commands, counts the queries and publishes events).
func (f *fakeSentinel) setBlackhole(v bool) {
	f.mu.Lock()
	f.blackhole = v
	f.mu.Unlock()
}

// setPeers sets the sentinels listed by SENTINEL SENTINELS.
// startFakeSentinels starts n fake sentinels for master that all list
// each other as peers, and returns them with their addresses.
func startFakeSentinels(t *testing.T, master string, n int) ([]*fakeSentinel, []string) {
	t.Helper()
	fs := make([]*fakeSentinel, 0, n)
	addrs := make([]string, 0, n)
	for i := 0; i < n; i++ {
		f := startFakeSentinel(t, master, 1)
		fs = append(fs, f)
		addrs = append(addrs, f.addr())
	}
	for _, f := range fs {
		f.setPeers(addrs...)
	}
	return fs, addrs
}

func (f *fakeSentinel) setPeers(peers ...string) {
	f.mu.Lock()
	f.peers = peers
	f.mu.Unlock()
}

func (f *fakeSentinel) dropSub(c net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.subs {
		if x == c {
			f.subs = append(f.subs[:i:i], f.subs[i+1:]...)
			return
		}
	}
}

// subCount returns how many connections subscribed.
func (f *fakeSentinel) subCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

// subscribedBy reports whether the client rdb reads a subscription to f:
// f confirmed its SUBSCRIBE and the client kept the connection. subCount
// alone is not that: it also counts an attempt the client is abandoning
// (f refuses HELLO 3 but runs the SUBSCRIBE pipelined behind it; the
// client closes that connection and subscribes again in RESP2), and a
// message published before the RESP2 subscription is made is lost. Under
// CPU load f notices the close late and that window is wide.
func (f *fakeSentinel) subscribedBy(rdb *redis.Client) bool {
	r := resolverOf(rdb)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.subBy[f.addr()] != nil
}

func (f *fakeSentinel) queryCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries
}

func (f *fakeSentinel) close() {
	f.ln.Close()
	f.mu.Lock()
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// publish sends a message on channel to every subscriber.
func (f *fakeSentinel) publish(channel, payload string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	msg := string(appendCommand(nil, "message", channel, payload))
	for _, c := range f.subs {
		_, _ = c.Write([]byte(msg))
	}
}

func (f *fakeSentinel) serve() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns[c] = true
		f.mu.Unlock()
		f.wg.Add(1)
		go f.handle(c)
	}
}

func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

func flat(m map[string]string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(2*len(m)) + "\r\n")
	for k, v := range m {
		b.WriteString(bulk(k) + bulk(v))
	}
	return b.String()
}

func (f *fakeSentinel) handle(c net.Conn) {
	defer f.wg.Done()
	defer c.Close()
	defer f.dropSub(c)
	br := bufio.NewReader(c)
	authed := false
	for {
		// Answer a pipelined batch as a whole: answers are computed on
		// arrival and, for a slow sentinel, sent delay later together.
		var out strings.Builder
		for first := true; first || br.Buffered() > 0; first = false {
			req, _, err := readReply(br, 0)
			if err != nil {
				return
			}
			var args []string
			for _, a := range req.arr {
				args = append(args, a.str)
			}
			if len(args) == 0 {
				return
			}
			f.holdQuery(args)
			out.WriteString(f.answer(c, args, &authed))
		}
		f.mu.Lock()
		bh, delay := f.blackhole, f.delay
		f.mu.Unlock()
		if bh {
			continue
		}
		if delay > 0 {
			time.Sleep(delay) // a slow sentinel
		}
		if _, err := c.Write([]byte(out.String())); err != nil {
			return
		}
	}
}

func (f *fakeSentinel) answer(c net.Conn, args []string, authed *bool) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	cmd := strings.ToUpper(args[0])
	sub := ""
	if len(args) > 1 {
		sub = strings.ToUpper(args[1])
	}
	if f.password != "" && cmd != "AUTH" && !*authed {
		return "-NOAUTH Authentication required.\r\n"
	}
	switch {
	case cmd == "AUTH":
		if f.password != "" && args[len(args)-1] != f.password {
			return "-WRONGPASS invalid username-password pair or user is disabled.\r\n"
		}
		*authed = true
		return "+OK\r\n"
	case cmd == "PING":
		return "+PONG\r\n"
	case cmd == "ROLE":
		return "*2\r\n$8\r\nsentinel\r\n*0\r\n"
	case cmd == "SUBSCRIBE":
		f.subs = append(f.subs, c)
		var b strings.Builder
		for i, ch := range args[1:] {
			b.WriteString("*3\r\n" + bulk("subscribe") + bulk(ch) + ":" + strconv.Itoa(i+1) + "\r\n")
		}
		return b.String()
	case cmd == "SENTINEL" && sub == "GET-MASTER-ADDR-BY-NAME":
		f.queries++
		if f.master == "" {
			return "*-1\r\n"
		}
		h, p, _ := net.SplitHostPort(f.master)
		return "*2\r\n" + bulk(h) + bulk(p)
	case cmd == "SENTINEL" && sub == "MASTER":
		if f.master == "" {
			return "-ERR No such master with that name\r\n"
		}
		h, p, _ := net.SplitHostPort(f.master)
		return flat(map[string]string{"name": args[2], "ip": h, "port": p, "flags": "master",
			"config-epoch": strconv.FormatInt(f.epoch, 10)})
	case cmd == "SENTINEL" && sub == "SENTINELS":
		var b strings.Builder
		b.WriteString("*" + strconv.Itoa(len(f.peers)) + "\r\n")
		for _, p := range f.peers {
			h, pt, _ := net.SplitHostPort(p)
			b.WriteString(flat(map[string]string{"name": p, "ip": h, "port": pt}))
		}
		return b.String()
	case cmd == "SENTINEL" && (sub == "REPLICAS" || sub == "SLAVES"):
		if f.master == "" {
			return "-ERR No such master with that name\r\n"
		}
		var b strings.Builder
		b.WriteString("*" + strconv.Itoa(len(f.replicas)) + "\r\n")
		for _, r := range f.replicas {
			b.WriteString(flat(r))
		}
		return b.String()
	}
	return "-ERR unknown command '" + args[0] + "'\r\n"
}

// blackHole is a listener that accepts connections and never answers.
func blackHole(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String()
}

// closedAddr returns a loopback address nobody listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	a := ln.Addr().String()
	ln.Close()
	return a
}
