package clientbench

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeSentinel answers the Sentinel queries of both clients (ours and
// go-redis's) with an address the benchmark controls, and publishes events
// on demand: it models the moment a sentinel starts naming the promoted
// replica, without waiting for a real failover's timing.
type fakeSentinel struct {
	ln net.Listener

	mu     sync.Mutex
	master string // "ip:port"
	epoch  int64
	subs   []net.Conn
	// subChans counts SUBSCRIBE requests per channel (go-redis's
	// subscription is the one with +replica-reconf-done).
	subChans map[string]int
	conns    map[net.Conn]bool
	wg       sync.WaitGroup
}

func startFakeSentinel(t *testing.T, master string, epoch int64) *fakeSentinel {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
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

func (f *fakeSentinel) subCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

// subscribedTo reports whether a client ever subscribed to channel here.
func (f *fakeSentinel) subscribedTo(channel string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.subChans[channel] > 0
}

func (f *fakeSentinel) publish(channel, payload string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	msg := "*3\r\n" + bulk("message") + bulk(channel) + bulk(payload)
	for _, c := range f.subs {
		_, _ = c.Write([]byte(msg))
	}
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

// readCommand reads one RESP array of bulk strings (what clients send).
func readCommand(br *bufio.Reader) ([]string, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(line, "*") {
		return strings.Fields(line), nil // inline command
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 0 || n > 64 {
		return nil, errors.New("bad array header")
	}
	args := make([]string, 0, n)
	for i := 0; i < n; i++ {
		h, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		h = strings.TrimRight(h, "\r\n")
		if !strings.HasPrefix(h, "$") {
			return nil, errors.New("bad bulk header")
		}
		l, err := strconv.Atoi(h[1:])
		if err != nil || l < 0 || l > 1<<20 {
			return nil, errors.New("bad bulk length")
		}
		b := make([]byte, l+2)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, err
		}
		args = append(args, string(b[:l]))
	}
	return args, nil
}

func (f *fakeSentinel) handle(c net.Conn) {
	defer f.wg.Done()
	defer c.Close()
	defer func() {
		f.mu.Lock()
		delete(f.conns, c)
		for i, s := range f.subs {
			if s == c {
				f.subs = append(f.subs[:i:i], f.subs[i+1:]...)
				break
			}
		}
		f.mu.Unlock()
	}()
	br := bufio.NewReader(c)
	for {
		args, err := readCommand(br)
		if err != nil || len(args) == 0 {
			return
		}
		f.mu.Lock()
		out := f.answer(c, args)
		_, werr := c.Write([]byte(out))
		f.mu.Unlock()
		if werr != nil {
			return
		}
	}
}

// answer is called with f.mu held.
func (f *fakeSentinel) answer(c net.Conn, args []string) string {
	cmd := strings.ToUpper(args[0])
	sub := ""
	if len(args) > 1 {
		sub = strings.ToUpper(args[1])
	}
	h, p, _ := net.SplitHostPort(f.master)
	switch {
	case cmd == "PING":
		return "+PONG\r\n"
	case cmd == "AUTH", cmd == "CLIENT", cmd == "SELECT":
		return "+OK\r\n"
	case cmd == "SUBSCRIBE" || cmd == "PSUBSCRIBE":
		f.subs = append(f.subs, c)
		if f.subChans == nil {
			f.subChans = map[string]int{}
		}
		for _, ch := range args[1:] {
			f.subChans[ch]++
		}
		var b strings.Builder
		for i, ch := range args[1:] {
			b.WriteString("*3\r\n" + bulk(strings.ToLower(cmd)) + bulk(ch) + ":" + strconv.Itoa(i+1) + "\r\n")
		}
		return b.String()
	case cmd == "SENTINEL" && sub == "GET-MASTER-ADDR-BY-NAME":
		return "*2\r\n" + bulk(h) + bulk(p)
	case cmd == "SENTINEL" && sub == "MASTER":
		kv := []string{"name", args[2], "ip", h, "port", p, "flags", "master", "config-epoch", strconv.FormatInt(f.epoch, 10)}
		var b strings.Builder
		b.WriteString("*" + strconv.Itoa(len(kv)) + "\r\n")
		for _, s := range kv {
			b.WriteString(bulk(s))
		}
		return b.String()
	case cmd == "SENTINEL" && (sub == "SENTINELS" || sub == "REPLICAS" || sub == "SLAVES"):
		return "*0\r\n"
	}
	return "-ERR unknown command '" + args[0] + "'\r\n"
}
