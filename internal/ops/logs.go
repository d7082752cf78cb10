package ops

import (
	"context"

	"github.com/redis/go-redis/v9"
)

type quietLogger struct{}

// Printf discards the message.
func (quietLogger) Printf(context.Context, string, ...any) {}

// SilenceDriverLogs stops go-redis from printing its internal pool messages
// ("failed to dial after 1 attempts") on stderr: the operator commands
// report every failure themselves, with context.
func SilenceDriverLogs() { redis.SetLogger(quietLogger{}) }
