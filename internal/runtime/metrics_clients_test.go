package runtime

import (
	"context"
	"testing"
	"time"
)

// TestSnapshotConnectedClients: the metrics snapshot counts the server's
// connected clients. The readiness probe's connection closes
// asynchronously, so the count is polled until it settles.
func TestSnapshotConnectedClients(t *testing.T) {
	r, addr, _ := startRuntime(t, "")
	ctx := context.Background()
	for want := 1; want <= 2; want++ {
		if err := client(t, addr).Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			s, err := r.MetricsSnapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if s.ConnectedClients == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("ConnectedClients = %d, want %d", s.ConnectedClients, want)
			}
			time.Sleep(5 * time.Millisecond) // no event for a server-side close
		}
	}
}
