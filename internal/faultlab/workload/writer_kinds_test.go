package workload

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestWriterKinds runs the pipeline, MULTI/EXEC and queue writers of both
// clients for a second against a real master with one replica (WAIT 1 of
// the queue) and checks the recording against what the master holds: every
// op ok, nothing lost, duplicated or torn, every queued id delivered or
// still queued.
func TestWriterKinds(t *testing.T) {
	c := testutil.StartSentinelCluster(t, "m", 1, 1, 1, 5000, 10000)
	for _, kind := range []ClientKind{ClientGosentinel, ClientGoRedis} {
		for _, mode := range []WriteMode{ModePipeline, ModeMulti, ModeQueue} {
			t.Run(string(kind)+"/"+string(mode), func(t *testing.T) {
				name := string(mode) + "-" + string(kind)
				w, err := StartWriter(context.Background(), WriterConfig{Name: name, Client: kind, MasterName: "m",
					Sentinels: c.SentinelAddrs(), Mode: mode, Rate: 40, MaxDuration: time.Second, Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				<-w.Done()
				ops := w.Stop()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				final, err := ReadBack(ctx, nil, c.Top.Master.Addr(), 8, "")
				if err != nil {
					t.Fatal(err)
				}
				per := map[string]int{}
				for _, op := range ops {
					per[op.Kind]++
					if op.Result != ResultOK || op.Node != c.Top.Master.Addr() || op.Sent != 1 {
						t.Fatalf("op %+v", op)
					}
					if mode == ModeMulti && op.Tx == "" {
						t.Fatalf("multi op without Tx: %+v", op)
					}
				}
				mine := FinalRead{}
				for k, ids := range final {
					for _, id := range ids {
						if len(id) > len(name) && id[:len(name)+1] == name+"-" {
							mine[k] = append(mine[k], id)
						}
					}
				}
				if mode != ModeQueue {
					r := Check(Input{Ops: ops, Final: mine})
					if r.Writes == 0 || r.Writes%(map[WriteMode]int{ModePipeline: PipelineDepth, ModeMulti: 2}[mode]) != 0 ||
						r.LostAck != 0 || r.Duplicates != 0 || r.TornTx != 0 || r.Phantom != 0 {
						t.Fatalf("check: %+v", r)
					}
					return
				}
				rdb := redis.NewClient(&redis.Options{Addr: c.Top.Master.Addr(), Protocol: 2})
				defer rdb.Close()
				remaining := map[string][]string{}
				for _, k := range QueueKeys(name) {
					remaining[k] = rdb.LRange(ctx, k, 0, -1).Val()
				}
				q := CheckQueue(ops, remaining)
				if q.EnqueuedOK == 0 || q.Delivered == 0 || q.Lost != 0 || q.DupResent+q.DupRedelivered+q.Phantom != 0 ||
					q.Delivered+q.Remaining != q.EnqueuedOK || per[KindEnqueue] != q.Enqueued || per[KindDequeue] != q.Delivered {
					t.Fatalf("queue: %+v (ops by kind %v)", q, per)
				}
			})
		}
	}
}
