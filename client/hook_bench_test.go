package client

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

// BenchmarkProcessHook measures what our hook adds to a successful command,
// without network noise (compare with the "bare" case).
func BenchmarkProcessHook(b *testing.B) {
	r := newResolver((&FailoverOptions{}).withDefaults(), roleMaster)
	defer r.shutdown()
	next := func(ctx context.Context, cmd redis.Cmder) error { return nil }
	ctx := context.Background()
	cmd := redis.NewStatusCmd(ctx, "SET", "k", "v")
	for _, tc := range []struct {
		name string
		fn   redis.ProcessHook
	}{
		{"bare", next},
		{"hook", hook{r}.ProcessHook(next)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = tc.fn(ctx, cmd)
			}
		})
	}
}
