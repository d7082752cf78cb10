package server

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchPipelined runs b.N requests spread over clients connections, each
// sending pipelines of depth requests, and reports requests per second.
func benchPipelined(b *testing.B, req, reply string, clients, depth int) {
	_, addr, _ := startServer(b, Config{})
	batch := []byte(strings.Repeat(req, depth))
	replyBatch := len(reply) * depth
	conns := make([]net.Conn, clients)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		conns[i] = c
		b.Cleanup(func() { _ = c.Close() })
	}
	perClient := (b.N + clients*depth - 1) / (clients * depth)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for _, c := range conns {
		wg.Add(1)
		go func(c net.Conn) {
			defer wg.Done()
			buf := make([]byte, replyBatch)
			for i := 0; i < perClient; i++ {
				if _, err := c.Write(batch); err != nil {
					errs <- err
					return
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					errs <- err
					return
				}
				if !bytes.HasPrefix(buf, []byte(reply)) {
					errs <- io.ErrUnexpectedEOF
					return
				}
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	total := perClient * clients * depth
	b.ReportMetric(float64(total)/elapsed.Seconds(), "req/s")
}

func BenchmarkPingPipelined50x100(b *testing.B) {
	benchPipelined(b, "*1\r\n$4\r\nPING\r\n", "+PONG\r\n", 50, 100)
}

func BenchmarkPingUnpipelined50(b *testing.B) {
	benchPipelined(b, "*1\r\n$4\r\nPING\r\n", "+PONG\r\n", 50, 1)
}

func BenchmarkForwardedPipelined50x100(b *testing.B) {
	benchPipelined(b, "*3\r\n$8\r\nSENTINEL\r\n$23\r\nget-master-addr-by-name\r\n$3\r\nmym\r\n",
		"*2\r\n$9\r\n127.0.0.1\r\n$4\r\n6379\r\n", 50, 100)
}

// TestRedisBenchmarkSideBySide runs redis-benchmark (PING_MBULK) against
// this server and a real redis-sentinel. It only runs when
// GOSENTINEL_BENCH=1, since it measures rather than checks:
//
//	GOSENTINEL_BENCH=1 go test -run TestRedisBenchmarkSideBySide -v ./internal/server/
func TestRedisBenchmarkSideBySide(t *testing.T) {
	if os.Getenv("GOSENTINEL_BENCH") != "1" {
		t.Skip("set GOSENTINEL_BENCH=1 to run")
	}
	bin, err := exec.LookPath("redis-benchmark")
	if err != nil {
		t.Skip("redis-benchmark not installed")
	}
	real := startRealSentinel(t)
	_, ours, _ := startServer(t, Config{})
	// The machine is shared and noisy: alternate the targets for a few
	// rounds and keep the best figure of each.
	best := map[string]float64{}
	for round := 0; round < 3; round++ {
		for _, target := range []struct{ name, addr string }{{"gosentinel", ours}, {"redis-sentinel", real}} {
			host, port, _ := net.SplitHostPort(target.addr)
			for _, pipeline := range []string{"1", "100"} {
				out, err := exec.Command(bin, "-h", host, "-p", port, "-t", "ping", "-c", "50", "-n", "200000", "-P", pipeline, "-q").CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", target.name, err, out)
				}
				for _, line := range strings.Split(strings.ReplaceAll(string(out), "\r", "\n"), "\n") {
					var test string
					var rps float64
					if _, err := fmt.Sscanf(line, "%s %f requests per second", &test, &rps); err == nil {
						key := fmt.Sprintf("%-15s %-12s -P %-3s", target.name, strings.TrimSuffix(test, ":"), pipeline)
						best[key] = max(best[key], rps)
					}
				}
			}
		}
	}
	keys := make([]string, 0, len(best))
	for k := range best {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s %10.0f req/s", k, best[k])
	}
}
