package clientprom

import (
	"context"
	"testing"

	"github.com/gosentinel/gosentinel/client"
	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// TestCollector: the collector exports the counters of a real client
// (one data connection → gosentinel_client_dials_total 1), lints clean,
// and exports nothing for a plain go-redis client.
func TestCollector(t *testing.T) {
	c := testutil.StartSentinelCluster(t, "mymaster", 0, 1, 1, 5000, 10000)
	rdb := client.NewFailoverClient(&client.FailoverOptions{MasterName: c.Name, SentinelAddrs: c.SentinelAddrs()})
	defer rdb.Close()
	if err := rdb.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	col := NewCollector(rdb.WithTimeout(0), prometheus.Labels{"master": "mymaster"})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(col)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != 1 || m.GetLabel()[0].GetValue() != "mymaster" {
				t.Fatalf("%s: labels %v", mf.GetName(), m.GetLabel())
			}
			got[mf.GetName()] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	if got["gosentinel_client_dials_total"] != 1 || got["gosentinel_client_resolutions_total"] < 1 ||
		got["gosentinel_client_sentinels"] != 1 || len(got) != 27 {
		t.Fatalf("metrics %v", got)
	}
	plain := prometheus.NewPedanticRegistry()
	plain.MustRegister(NewCollector(redis.NewClient(&redis.Options{Addr: c.Top.Master.Addr()}), nil))
	if mfs, err := plain.Gather(); err != nil || len(mfs) != 0 {
		t.Fatalf("plain go-redis client: %d metric families (%v), want 0", len(mfs), err)
	}
}
