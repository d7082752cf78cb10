package runtime

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// BenchmarkGetMasterAddr50 is redis-benchmark -c 50 (-P 1 and -P 16) on
// SENTINEL GET-MASTER-ADDR-BY-NAME, in process, with and without the
// query cache (querycache.go). The master does not exist (no link
// traffic), which the cache handles like any other reply.
//
//	go test -run '^$' -bench GetMasterAddr50 -cpuprofile /tmp/cpu.out ./internal/runtime/
func BenchmarkGetMasterAddr50(b *testing.B) {
	for _, bc := range []struct {
		nocache bool
		depth   int
	}{{false, 1}, {true, 1}, {false, 16}, {true, 16}} {
		nocache, depth := bc.nocache, bc.depth
		b.Run(fmt.Sprintf("nocache=%v/P=%d", nocache, depth), func(b *testing.B) {
			port := testutil.FreePort(b)
			r, _ := runConfOpts(b, fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor mym 127.0.0.1 1 1\n", port), Options{NoQueryCache: nocache})
			addr := r.Addrs()[0].String()
			req := bytes.Repeat([]byte("*3\r\n$8\r\nSENTINEL\r\n$23\r\nGET-MASTER-ADDR-BY-NAME\r\n$3\r\nmym\r\n"), depth)
			want := strings.Repeat("*2\r\n$9\r\n127.0.0.1\r\n$1\r\n1\r\n", depth)
			const clients = 50
			var wg sync.WaitGroup
			per := b.N/(clients*depth) + 1
			b.ResetTimer()
			for i := 0; i < clients; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, err := net.Dial("tcp", addr)
					if err != nil {
						b.Error(err)
						return
					}
					defer c.Close()
					rd := bufio.NewReader(c)
					buf := make([]byte, len(want))
					for j := 0; j < per; j++ {
						if _, err := c.Write(req); err != nil {
							b.Error(err)
							return
						}
						if _, err := io.ReadFull(rd, buf); err != nil || string(buf) != want {
							b.Errorf("reply %q: %v", buf, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(per*clients*depth)/b.Elapsed().Seconds(), "req/s")
		})
	}
}
