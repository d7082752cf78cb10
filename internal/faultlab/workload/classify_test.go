package workload

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// direct returns a go-redis client to addr whose connections are tracked,
// as a Writer's are.
func direct(t *testing.T, addr string, tr *sendTracker, o redis.Options) *redis.Client {
	t.Helper()
	o.Addr = addr
	o.Dialer = tr.dialer(Dialer(nil).orDefault())
	if o.ReadTimeout == 0 {
		o.ReadTimeout = 300 * time.Millisecond
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = -1
	}
	c := redis.NewClient(&o)
	t.Cleanup(func() { c.Close() })
	return c
}

func opOn(t *testing.T, c *redis.Client, tr *sendTracker, mode WriteMode, replicas int, id string) Op {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// WAIT's timeout is long here so that "the replica acknowledged" does
	// not depend on the machine's load; WAIT returns as soon as it has.
	return runOp(ctx, c, tr, mode, replicas, time.Second, "t", id, "log:0")
}

// TestClassifyReal checks every outcome class against real redis-server
// replies and failures.
func TestClassifyReal(t *testing.T) {
	top := testutil.StartTopology(t, 1)
	master, replica := top.Master.Addr(), top.Replicas[0].Addr()
	tr := newSendTracker("t")

	t.Run("ok with the acknowledging node", func(t *testing.T) {
		op := opOn(t, direct(t, master, tr, redis.Options{}), tr, ModePlain, 0, "t-1")
		if op.Result != ResultOK || op.Node != master || op.Sent != 1 || op.Replicas != -1 {
			t.Fatalf("%+v, want ok by %s sent once", op, master)
		}
	})
	t.Run("WAIT reaches the replica", func(t *testing.T) {
		// WAIT 1 0 blocks until the replica acknowledges (the linked
		// replica always does), bounded by the read timeout: the outcome
		// awaits the acknowledgement instead of racing a WAIT timeout
		// against the machine's load (WAIT 1 1000 timed out once at load
		// 40 with the replica linked).
		c := direct(t, master, tr, redis.Options{ReadTimeout: 10 * time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		op := runOp(ctx, c, tr, ModeWaitAll, 1, 0, "t", "t-2", "log:0")
		if op.Result != ResultOK || op.Replicas != 1 {
			t.Fatalf("%+v, want ok with 1 replica", op)
		}
	})
	t.Run("WAIT for more replicas than exist is unknown", func(t *testing.T) {
		op := opOn(t, direct(t, master, tr, redis.Options{ReadTimeout: 5 * time.Second}), tr, ModeWaitAll, 2, "t-3")
		// One replica exists: WAIT 2 can never be satisfied.
		if op.Result != ResultUnknown || op.Replicas != 1 || op.Err != "WAIT 1/2" {
			t.Fatalf("%+v, want unknown WAIT 1/2", op)
		}
	})
	t.Run("READONLY from a replica is fail", func(t *testing.T) {
		op := opOn(t, direct(t, replica, tr, redis.Options{}), tr, ModePlain, 0, "t-4")
		if op.Result != ResultFail || op.Sent != 1 || !strings.HasPrefix(op.Err, "READONLY") || op.Node != replica {
			t.Fatalf("%+v, want fail READONLY sent once", op)
		}
	})
	t.Run("refused dial is fail, never sent", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		dead := l.Addr().String()
		l.Close()
		op := opOn(t, direct(t, dead, tr, redis.Options{}), tr, ModePlain, 0, "t-5")
		if op.Result != ResultFail || op.Sent != 0 {
			t.Fatalf("%+v, want fail never sent", op)
		}
	})
	t.Run("NOREPLICAS is fail", func(t *testing.T) {
		m := testutil.StartRedis(t, "min-replicas-to-write 1")
		op := opOn(t, direct(t, m.Addr(), tr, redis.Options{}), tr, ModePlain, 0, "t-6")
		if op.Result != ResultFail || op.Sent != 1 || !strings.HasPrefix(op.Err, "NOREPLICAS") {
			t.Fatalf("%+v, want fail NOREPLICAS", op)
		}
	})
	t.Run("NOAUTH is fail", func(t *testing.T) {
		m := testutil.StartRedis(t, "requirepass sekrit")
		op := opOn(t, direct(t, m.Addr(), tr, redis.Options{Protocol: 2}), tr, ModePlain, 0, "t-7")
		if op.Result != ResultFail || op.Sent != 1 || !strings.HasPrefix(op.Err, "NOAUTH") {
			t.Fatalf("%+v, want fail NOAUTH", op)
		}
	})
	t.Run("timeout after send is unknown", func(t *testing.T) {
		m := testutil.StartRedis(t)
		c := direct(t, m.Addr(), tr, redis.Options{})
		if err := c.Ping(context.Background()).Err(); err != nil { // connect before the pause
			t.Fatal(err)
		}
		m.Stop()
		defer m.Cont()
		op := opOn(t, c, tr, ModePlain, 0, "t-8")
		if op.Result != ResultUnknown || op.Sent != 1 {
			t.Fatalf("%+v, want unknown sent once", op)
		}
	})
	t.Run("resent by a retry is unknown and duplicated", func(t *testing.T) {
		m := testutil.StartRedis(t)
		p := cutAfterPush(t, m.Addr())
		c := direct(t, p, tr, redis.Options{Protocol: 2, MaxRetries: 2, MinRetryBackoff: time.Millisecond, MaxRetryBackoff: 2 * time.Millisecond})
		op := opOn(t, c, tr, ModePlain, 0, "t-9")
		if op.Result != ResultUnknown || op.Sent != 3 {
			t.Fatalf("%+v, want unknown sent 3 times (go-redis resends a pipeline after EOF)", op)
		}
		rd := redis.NewClient(&redis.Options{Addr: m.Addr()})
		defer rd.Close()
		ids, err := rd.LRange(context.Background(), "log:0", 0, -1).Result()
		if err != nil || len(ids) != 3 {
			t.Fatalf("list %v %v, want the id 3 times", ids, err)
		}
	})
}

// cutAfterPush is a TCP proxy to a real redis that closes the client's
// connection right after forwarding a write that contains RPUSH: the
// command runs, its reply never arrives (a connection lost after send).
func cutAfterPush(t *testing.T, upstream string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-done })
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		defer wg.Wait()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			var cut atomic.Bool
			wg.Add(2)
			go func() { // upstream → client, until the first reply after a cut
				defer wg.Done()
				defer c.Close()
				defer u.Close()
				buf := make([]byte, 4096)
				for {
					n, err := u.Read(buf)
					if n > 0 && cut.Load() {
						return // redis executed it and replied: drop the reply
					}
					if n > 0 {
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() { // client → upstream
				defer wg.Done()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						if strings.Contains(strings.ToLower(string(buf[:n])), "rpush") {
							cut.Store(true)
						}
						if _, werr := u.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						u.Close()
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

func TestLaddr(t *testing.T) {
	line := "id=3 addr=127.0.0.1:5000 laddr=127.0.0.1:6379 fd=8 name= age=0"
	if got := laddr(line); got != "127.0.0.1:6379" {
		t.Fatalf("laddr %q", got)
	}
	if got := laddr("id=3 addr=x"); got != "" {
		t.Fatalf("laddr of a line without it: %q", got)
	}
}

func TestTrackerCountsIDs(t *testing.T) {
	tr := newSendTracker("w")
	tr.begin("w-1")
	tr.begin("w-12")
	tr.saw([]byte("*3\r\n$5\r\nRPUSH\r\n$5\r\nlog:0\r\n$3\r\nw-1\r\n*3\r\n$5\r\nRPUSH\r\n$5\r\nlog:1\r\n$4\r\nw-12\r\n"))
	tr.saw([]byte("$3\r\nw-1\r\n"))
	if a, b := tr.end("w-1"), tr.end("w-12"); a != 2 || b != 1 {
		t.Fatalf("w-1 sent %d, w-12 sent %d, want 2 1", a, b)
	}
	if n := tr.end("w-3"); n != 0 {
		t.Fatalf("unknown id: %d", n)
	}
}
