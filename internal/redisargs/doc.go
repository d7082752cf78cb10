// Package redisargs splits a line into arguments exactly like Redis'
// sdssplitargs (src/sds.c), the tokenizer behind both redis.conf /
// sentinel.conf lines and inline commands. It is shared by internal/config
// (configuration files) and internal/resp (inline requests) so that the two
// cannot drift apart, and it imports nothing but the standard library.
package redisargs
