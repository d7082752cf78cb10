package ops

import (
	"errors"

	"github.com/redis/go-redis/v9"
)

// asRedisError reports whether err is (or wraps) an error reply from a
// server, as opposed to a network or timeout failure.
func asRedisError(err error, target *redis.Error) bool {
	return errors.As(err, target) && !isNetTimeout(err)
}

func isNetTimeout(err error) bool {
	type timeout interface{ Timeout() bool }
	var t timeout
	return errors.As(err, &t) && t.Timeout()
}
