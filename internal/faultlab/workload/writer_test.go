package workload

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

func TestWriterConfigErrors(t *testing.T) {
	for _, c := range []WriterConfig{
		{},
		{Name: "w", MasterName: "m"},
		{Name: "w", MasterName: "m", Sentinels: []string{"x:1"}, Client: "nope"},
		{Name: "w", MasterName: "m", Sentinels: []string{"x:1"}, Client: ClientGoRedis, Mode: "sometimes"},
		{Name: "w", MasterName: "m", Sentinels: []string{"x:1"}, Client: ClientGoRedis, Mode: ModeWaitAll},
	} {
		if _, err := StartWriter(context.Background(), c); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%+v: %v, want ErrBadConfig", c, err)
		}
	}
	if _, err := StartSampler(context.Background(), SamplerConfig{MasterName: "m", Redis: []Target{{Name: "a", Addr: "x:1"}, {Name: "a", Addr: "x:2"}}}); !errors.Is(err, ErrBadConfig) {
		t.Errorf("duplicate target names: %v", err)
	}
}

// TestWriterBoundedRateAndLife: a writer never exceeds its rate and stops
// by itself after MaxDuration, with both clients.
func TestWriterBoundedRateAndLife(t *testing.T) {
	c := testutil.StartSentinelCluster(t, "m", 0, 1, 1, 5000, 10000)
	for _, kind := range []ClientKind{ClientGosentinel, ClientGoRedis} {
		t.Run(string(kind), func(t *testing.T) {
			w, err := StartWriter(context.Background(), WriterConfig{Name: "w-" + string(kind), Client: kind, MasterName: "m",
				Sentinels: c.SentinelAddrs(), Rate: 50, MaxDuration: time.Second, Workers: 4})
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-w.Done():
			case <-time.After(15 * time.Second):
				t.Fatal("writer did not stop after MaxDuration")
			}
			ops := w.Stop()
			// 50/s with burst 1 for 1 s: at most 51 tokens.
			if len(ops) == 0 || len(ops) > 51 {
				t.Fatalf("%d writes in 1 s at 50/s", len(ops))
			}
			for i, op := range ops {
				if op.Result != ResultOK || op.Node != c.Top.Master.Addr() || op.Sent != 1 {
					t.Fatalf("op %d: %+v", i, op)
				}
				if i > 0 && op.Invoke.Before(ops[i-1].Invoke) {
					t.Fatal("ops not in invocation order")
				}
			}
			if again := w.Stop(); len(again) != len(ops) {
				t.Fatalf("second Stop: %d ops, first %d", len(again), len(ops))
			}
		})
	}
}
