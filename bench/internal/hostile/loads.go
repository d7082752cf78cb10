package hostile

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gosentinel/gosentinel/bench/harness"
)

// Target is the sentinel a load is aimed at.
type Target struct {
	Addr       string // the sentinel
	MasterAddr string // the monitored redis-server (victim master)
	MasterPort int
	Victim     string // the victim master's name
	// EventNames is a pattern matching the unreachable masters (not the
	// victim): SENTINEL RESET of it makes events flow.
	EventNames string
	// DeadPort is a loopback port nothing listens on (fake peers
	// announce it).
	DeadPort int
}

// Counter counts what a load did: requests answered (error replies
// included), connections made, bytes read; and connection failures.
type Counter struct {
	Done   atomic.Int64
	Errors atomic.Int64
}

// Load is one hostile load. Run starts its clients and returns when ctx
// ends, after closing every connection it opened.
type Load struct {
	Name string
	Desc string
	// Unit names what Counter.Done counts.
	Unit string
	// Masters unreachable masters (names "m0000-x…", NameLen long) are
	// monitored besides the victim; SENTINEL RESET of them makes events.
	Masters, NameLen int
	Run              func(ctx context.Context, t Target, c *Counter)
}

// Evil is a glob pattern that backtracks on a name of many 'a's without
// a 'b' (the victim's name): with an unbounded matcher its cost grows
// exponentially with the number of stars (issue 15, item 1).
var Evil = strings.Repeat("*a", 12) + "*b"

// VictimName is the name of the victim master: 40 'a's, on which Evil
// backtracks and which Evil never matches (so RESET of it resets nothing).
var VictimName = strings.Repeat("a", 40)

// Loads are the hostile loads of issue 15 and two controls (none,
// events).
var Loads = []Load{
	{Name: "none", Desc: "no load (control)", Unit: "—", Run: func(ctx context.Context, _ Target, _ *Counter) { <-ctx.Done() }},
	{Name: "glob", Unit: "requests", Desc: "2 clients in a loop: SENTINEL RESET, SENTINEL CONFIG GET, COMMAND LIST FILTERBY PATTERN with backtracking glob patterns (`(*a)^12*b`, `(*a)^40*b`), ACL SETUSER with such a channel pattern and ACL DRYRUN of it", Run: runGlob},
	{Name: "epoch", Unit: "requests", Desc: "2 clients in a loop: SENTINEL IS-MASTER-DOWN-BY-ADDR of the victim master with huge epochs (2^62 + i, growing, a new run id each time)", Run: runEpoch},
	{Name: "epochstep", Unit: "requests", Desc: "2 clients in a loop: SENTINEL IS-MASTER-DOWN-BY-ADDR of the victim master with epochs 10^6 × i (i = 1, 2, …), each the most gosentinel's epoch rule still accepts (docs/security.md \"Epoch poisoning refused\"), a new run id each time: to redis-sentinel every request is a new epoch and a vote it saves; gosentinel's vote gate refuses a vote for a master it sees up without adopting the epoch", Run: runEpochStep},
	{Name: "events", Unit: "requests", Masters: 200, NameLen: 10, Desc: "control of psub/slowsub/large: SENTINEL RESET of 200 unreachable masters (10-byte names) in a loop, one PSUBSCRIBE * subscriber that reads", Run: runEvents},
	{Name: "psub", Unit: "requests", Masters: 200, NameLen: 10, Desc: "events as in `events`, plus 4 clients with 5 backtracking PSUBSCRIBE patterns each (`(*a)^12*b`, `(*e)^12*z`, …)", Run: runPsub},
	{Name: "slowsub", Unit: "requests", Masters: 200, NameLen: 10, Desc: "SENTINEL RESET of 200 unreachable masters in a loop and one PSUBSCRIBE * subscriber that never reads (4 KiB receive buffer), like scripts/client-rss.py slowsub", Run: runSlowSub},
	{Name: "large", Unit: "requests", Masters: 200, NameLen: 8192, Desc: "the same with 8 KiB master names (1023-byte events), plus one subscriber that reads, like scripts/client-rss.py large", Run: runLarge},
	{Name: "idle", Unit: "connections", Desc: "4000 connections opened at once, one PING each, then held idle", Run: runIdle},
	{Name: "reconnect", Unit: "connections", Desc: "reconnect storm: 16 clients in a loop open a connection, send one command (PING or GET-MASTER-ADDR-BY-NAME), read the reply and close it (RST)", Run: runReconnect},
	{Name: "malformed", Unit: "connections + messages", Desc: "4 clients in a loop send hostile protocol input on fresh connections (bulk length 536870000 and 10^17, unterminated multibulk of 1048576, 70 KB inline garbage, random bytes, wrong types), plus a fake peer PUBLISHing hello messages to the sentinel in a loop: random bytes, too few fields, fields of the wrong type, 64 KB of commas, and (2 in 6) well-formed hellos about the victim master from a new run id each time with a huge epoch", Run: runMalformed},
	{Name: "peerhello", Unit: "messages", Desc: "a fake peer PUBLISHes the hellos of `malformed` on the monitored master's __sentinel__:hello channel (heard by the sentinel on its Pub/Sub link), 1000 per second", Run: runPeerHello},
	{Name: "peerflood", Unit: "messages", Desc: "a fake peer PUBLISHes 64 KB hellos (65536 commas) on the monitored master's __sentinel__:hello channel as fast as the master answers: this loads the monitored redis-server too, whose replies to the sentinel's PINGs then wait", Run: runPeerFlood},
}

// LoadByName returns the load called name.
func LoadByName(name string) (Load, bool) {
	for _, l := range Loads {
		if l.Name == name {
			return l, true
		}
	}
	return Load{}, false
}

// closeOnDone closes c when ctx ends (to interrupt a blocked read); the
// returned function stops the watch.
func closeOnDone(ctx context.Context, c io.Closer) func() {
	stop := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = c.Close()
		case <-stop:
		}
	}()
	return func() { close(stop) }
}

// parallel runs n copies of fn and waits for all.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i)
		}()
	}
	wg.Wait()
}

// requestLoop sends next(j) for j = 0, 1, … over one persistent
// connection to addr until ctx ends. Every reply counts, error replies
// included (a refused request is fine; only a stall is not); a broken
// connection is counted as an error and dialled again.
func requestLoop(ctx context.Context, addr string, timeout time.Duration, c *Counter, next func(j int) []string) {
	j := 0
	for ctx.Err() == nil {
		conn, err := harness.Dial(addr, timeout)
		if err != nil {
			c.Errors.Add(1)
			sleepCtx(ctx, 10*time.Millisecond)
			continue
		}
		stop := closeOnDone(ctx, conn)
		for ctx.Err() == nil {
			if _, err = conn.Do(timeout, next(j)...); err != nil {
				break
			}
			j++
			c.Done.Add(1)
		}
		stop()
		_ = conn.Close()
		if ctx.Err() == nil {
			c.Errors.Add(1)
			sleepCtx(ctx, 10*time.Millisecond)
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// runGlob: backtracking glob patterns from the network (issue 15 item 1).
func runGlob(ctx context.Context, t Target, c *Counter) {
	long := strings.Repeat("*a", 40) + "*b"
	reqs := [][]string{
		{"SENTINEL", "RESET", Evil},
		{"SENTINEL", "CONFIG", "GET", Evil},
		{"COMMAND", "LIST", "FILTERBY", "PATTERN", Evil},
		{"ACL", "SETUSER", "hostile", "on", "nopass", "+@all", "resetchannels", "&" + Evil},
		{"ACL", "DRYRUN", "hostile", "PUBLISH", t.Victim, "x"},
		{"SENTINEL", "RESET", long},
		{"SENTINEL", "CONFIG", "GET", long},
	}
	parallel(2, func(i int) {
		requestLoop(ctx, t.Addr, 5*time.Second, c, func(j int) []string { return reqs[(i+j)%len(reqs)] })
	})
}

// runEpoch: epoch poisoning by vote requests (issue 15 item 2).
func runEpoch(ctx context.Context, t Target, c *Counter) {
	var n atomic.Int64
	parallel(2, func(int) {
		requestLoop(ctx, t.Addr, 5*time.Second, c, func(int) []string {
			e := int64(1)<<62 + n.Add(1)
			return []string{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", strconv.Itoa(t.MasterPort), strconv.FormatInt(e, 10), runID()}
		})
	})
}

// runEpochStep: vote requests each a million epochs ahead of the last,
// the largest step gosentinel accepts (internal/core/epoch.go
// MaxEpochAhead), so each one is adopted and saved.
func runEpochStep(ctx context.Context, t Target, c *Counter) {
	var n atomic.Int64
	parallel(2, func(int) {
		requestLoop(ctx, t.Addr, 5*time.Second, c, func(int) []string {
			e := n.Add(1) * 1_000_000
			return []string{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", strconv.Itoa(t.MasterPort), strconv.FormatInt(e, 10), runID()}
		})
	})
}

// runID returns a random 40-hex-digit run id.
func runID() string {
	const hex = "0123456789abcdef"
	b := make([]byte, 40)
	for i := range b {
		b[i] = hex[rand.IntN(16)]
	}
	return string(b)
}

// resetLoop makes events flow: SENTINEL RESET of the unreachable masters
// in a loop (one +reset-master event per master and RESET).
func resetLoop(ctx context.Context, t Target, c *Counter) {
	requestLoop(ctx, t.Addr, 10*time.Second, c, func(int) []string { return []string{"SENTINEL", "RESET", t.EventNames} })
}

// subscriber subscribes with PSUBSCRIBE to patterns; it reads everything
// (read) or nothing at all, with a 4 KiB receive buffer (a slow
// subscriber), until ctx ends.
func subscriber(ctx context.Context, addr string, read bool, patterns ...string) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return
	}
	defer conn.Close()
	if !read {
		_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	}
	if _, err := conn.Write(harness.EncodeCommand(append([]string{"PSUBSCRIBE"}, patterns...)...)); err != nil {
		return
	}
	stop := closeOnDone(ctx, conn)
	defer stop()
	if read {
		_, _ = io.Copy(io.Discard, conn)
		return
	}
	<-ctx.Done()
}

// withEvents runs resetLoop and the given subscribers side by side.
func withEvents(ctx context.Context, t Target, c *Counter, subs ...func()) {
	parallel(len(subs)+1, func(i int) {
		if i == 0 {
			resetLoop(ctx, t, c)
			return
		}
		subs[i-1]()
	})
}

func runEvents(ctx context.Context, t Target, c *Counter) {
	withEvents(ctx, t, c, func() { subscriber(ctx, t.Addr, true, "*") })
}

// psubPatterns backtrack on event channel names (+reset-master, +sdown,
// …) and match none.
var psubPatterns = []string{
	Evil,
	strings.Repeat("*e", 12) + "*z",
	strings.Repeat("*s", 12) + "*q",
	strings.Repeat("*-", 12) + "*x",
	strings.Repeat("?*", 12) + "z",
}

func runPsub(ctx context.Context, t Target, c *Counter) {
	subs := []func(){func() { subscriber(ctx, t.Addr, true, "*") }}
	for range 4 {
		subs = append(subs, func() { subscriber(ctx, t.Addr, true, psubPatterns...) })
	}
	withEvents(ctx, t, c, subs...)
}

func runSlowSub(ctx context.Context, t Target, c *Counter) {
	withEvents(ctx, t, c, func() { subscriber(ctx, t.Addr, false, "*") })
}

func runLarge(ctx context.Context, t Target, c *Counter) {
	withEvents(ctx, t, c,
		func() { subscriber(ctx, t.Addr, false, "*") },
		func() { subscriber(ctx, t.Addr, true, "*") })
}

// IdleConns is the number of connections of the idle load.
const IdleConns = 4000

func runIdle(ctx context.Context, t Target, c *Counter) {
	parallel(IdleConns, func(int) {
		conn, err := net.DialTimeout("tcp", t.Addr, 10*time.Second)
		if err != nil {
			c.Errors.Add(1)
			return
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 7)
		if _, err := conn.Write([]byte("PING\r\n")); err != nil {
			c.Errors.Add(1)
			return
		}
		if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "+PONG\r\n" {
			c.Errors.Add(1)
			return
		}
		c.Done.Add(1)
		<-ctx.Done()
	})
}

// oneShot dials addr, writes b, reads the reply (or whatever comes within
// wait) and closes with a reset (no TIME_WAIT left behind: the loads open
// thousands of connections per second).
func oneShot(addr string, b []byte, want int, wait time.Duration) error {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return fmt.Errorf("dial: %w", err)
	}
	defer func() {
		_ = conn.(*net.TCPConn).SetLinger(0)
		_ = conn.Close()
	}()
	_ = conn.SetDeadline(time.Now().Add(wait))
	if _, err := conn.Write(b); err != nil {
		return nil // the server may close on the first bad byte
	}
	if want > 0 {
		buf := make([]byte, want)
		if _, err := io.ReadFull(conn, buf); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		return nil
	}
	_, _ = conn.Read(make([]byte, 512))
	return nil
}

func runReconnect(ctx context.Context, t Target, c *Counter) {
	ping := []byte("*1\r\n$4\r\nPING\r\n")
	get := harness.EncodeCommand("SENTINEL", "GET-MASTER-ADDR-BY-NAME", t.Victim)
	// *2 $9 127.0.0.1 $<n> port
	getLen := len("*2\r\n$9\r\n127.0.0.1\r\n$" + strconv.Itoa(len(strconv.Itoa(t.MasterPort))) + "\r\n" + strconv.Itoa(t.MasterPort) + "\r\n")
	parallel(16, func(i int) {
		for j := i; ctx.Err() == nil; j++ {
			var err error
			if j%2 == 0 {
				err = oneShot(t.Addr, ping, len("+PONG\r\n"), 5*time.Second)
			} else {
				err = oneShot(t.Addr, get, getLen, 5*time.Second)
			}
			if err != nil {
				c.Errors.Add(1)
				continue
			}
			c.Done.Add(1)
		}
	})
}

// malformedInputs are written on fresh connections by the malformed load.
func malformedInputs() [][]byte {
	garbage := make([]byte, 70000)
	for i := range garbage {
		garbage[i] = 'a' + byte(i%26)
	}
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rand.IntN(256))
	}
	return [][]byte{
		append([]byte("*1\r\n$536870000\r\n"), make([]byte, 1024)...),
		[]byte("*2\r\n$4\r\nPING\r\n$99999999999999999\r\n"),
		[]byte("*1048576\r\n$4\r\nPING\r\n"),
		[]byte("*3\r\n$8\r\nSENTINEL\r\n$23\r\nGET-MASTER-ADDR-BY-NAME\r\n"),
		garbage,
		random,
		[]byte("*-5\r\n$5\r\nhello\r\n*1\r\n:5\r\n*1\r\n*1\r\n*1\r\n$1\r\nx\r\n"),
		[]byte("*2147483648\r\n"),
	}
}

// hellos are garbage and hostile hello messages of a fake peer: random
// bytes, too few fields, fields of the wrong type, a 64 KB message, and
// well-formed hellos about the victim master (same address, config
// epoch 0) from a new run id each time with a huge current epoch.
func hellos(t Target, j int) string {
	switch j % 6 {
	case 0:
		b := make([]byte, 200)
		for i := range b {
			b[i] = byte(rand.IntN(256))
		}
		return string(b)
	case 1:
		return "a,b,c"
	case 2:
		return "127.0.0.1,notaport,x,-1,,127.0.0.1,99999999999,zz"
	case 3:
		return strings.Repeat(",", 65536)
	default:
		return fmt.Sprintf("127.0.0.1,%d,%s,%d,%s,127.0.0.1,%d,0", t.DeadPort, runID(), int64(1)<<62+int64(j), t.Victim, t.MasterPort)
	}
}

func runMalformed(ctx context.Context, t Target, c *Counter) {
	inputs := malformedInputs()
	parallel(5, func(i int) {
		switch i {
		case 4: // a fake peer PUBLISHes to the sentinel itself
			requestLoop(ctx, t.Addr, 5*time.Second, c, func(j int) []string {
				return []string{"PUBLISH", "__sentinel__:hello", hellos(t, j)}
			})
		default:
			for j := i; ctx.Err() == nil; j++ {
				if err := oneShot(t.Addr, inputs[j%len(inputs)], 0, 50*time.Millisecond); err != nil {
					c.Errors.Add(1)
					continue
				}
				c.Done.Add(1)
			}
		}
	})
}

// PeerHelloPace is the interval between two hellos of the peerhello load's
// fake peer: 1000 per second, 500 times what a real peer publishes per
// master, yet not so many that the monitored redis-server itself stops
// answering PINGs in time (unpaced, 64 KB messages did that: redis-sentinel
// then flagged the master down before it was stopped).
const PeerHelloPace = time.Millisecond

// runPeerHello: a fake peer PUBLISHes the hellos of the malformed load on
// the monitored master's __sentinel__:hello channel, which the sentinel
// reads on its Pub/Sub link to the master.
func runPeerHello(ctx context.Context, t Target, c *Counter) {
	next := time.Now()
	requestLoop(ctx, t.MasterAddr, time.Second, c, func(j int) []string {
		next = next.Add(PeerHelloPace)
		if d := time.Until(next); d > 0 {
			sleepCtx(ctx, d)
		} else {
			next = time.Now()
		}
		return []string{"PUBLISH", "__sentinel__:hello", hellos(t, j)}
	})
}

// runPeerFlood: a fake peer PUBLISHes 64 KB hellos (commas only) on the
// monitored master's __sentinel__:hello channel as fast as the master
// answers. This loads the master as much as the sentinel.
func runPeerFlood(ctx context.Context, t Target, c *Counter) {
	requestLoop(ctx, t.MasterAddr, time.Second, c, func(int) []string {
		return []string{"PUBLISH", "__sentinel__:hello", strings.Repeat(",", 65536)}
	})
}
