package workload

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// write runs one operation of this writer.
func (w *Writer) write(id, key string) Op {
	ctx, cancel := w.opContext()
	defer cancel()
	return runOp(ctx, w.rdb, w.tracker, w.cfg.Mode, w.cfg.Replicas, w.cfg.WaitTimeout, w.cfg.Name, id, key)
}

// runOp runs one operation through rdb: one pipeline on one connection,
// RPUSH key id [WAIT n waitTimeout] CLIENT INFO, and classifies it. tr
// must track rdb's connections.
func runOp(ctx context.Context, rdb *redis.Client, tr *sendTracker, mode WriteMode, replicas int, waitTimeout time.Duration, writer, id, key string) Op {
	op := Op{Writer: writer, ID: id, Key: key, Replicas: -1}
	want := 0
	switch mode {
	case ModeWait1:
		want = 1
	case ModeWaitAll:
		want = replicas
	}
	tr.begin(id)
	op.Invoke = time.Now()
	var push *redis.IntCmd
	var wait, info *redis.Cmd
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		push = p.RPush(ctx, key, id)
		if want > 0 {
			wait = p.Do(ctx, "WAIT", want, waitTimeout.Milliseconds())
		}
		info = p.Do(ctx, "CLIENT", "INFO")
		return nil
	})
	op.Complete = time.Now()
	op.Sent = tr.end(id)
	classify(&op, err, push, wait, info, want)
	return op
}

// classify fills op.Result, Node, Replicas and Err from the pipeline's
// outcome. want is how many replicas WAIT must report (0: no WAIT).
func classify(op *Op, err error, push *redis.IntCmd, wait *redis.Cmd, info *redis.Cmd, want int) {
	if info != nil && info.Err() == nil {
		if s, e := info.Text(); e == nil {
			op.Node = laddr(s)
		}
	}
	var perr error
	if push != nil {
		perr = push.Err()
	} else {
		perr = err
	}
	switch {
	case perr == nil && push != nil:
		// RPUSH answered with its integer: executed.
		op.Result = ResultOK
		if wait != nil {
			n, werr := wait.Int64()
			if werr != nil {
				op.Result, op.Err = ResultUnknown, "WAIT: "+werr.Error()
			} else {
				op.Replicas = int(n)
				if int(n) < want {
					op.Result = ResultUnknown
					op.Err = "WAIT " + strconv.FormatInt(n, 10) + "/" + strconv.Itoa(want)
				}
			}
		}
	case op.Sent == 0:
		// The id never reached a socket: whatever the error, nothing ran.
		op.Result, op.Err = ResultFail, perr.Error()
	case op.Sent == 1 && isErrorReply(perr):
		// Sent once, refused with an error reply: Redis rejects a command
		// before executing it (READONLY, NOREPLICAS, MASTERDOWN, LOADING,
		// NOAUTH, OOM, MISCONF...).
		op.Result, op.Err = ResultFail, perr.Error()
	default:
		// Timeout, connection lost, or resent by a retry and then failed.
		op.Result, op.Err = ResultUnknown, perr.Error()
	}
}

// isErrorReply reports whether err is a reply from the server (RESP error)
// rather than a local or network failure.
func isErrorReply(err error) bool {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		return false
	}
	// go-redis also uses redis.Error for a few local conditions; a real
	// reply starts with an upper-case error code.
	msg := rerr.Error()
	return msg != "" && msg[0] >= 'A' && msg[0] <= 'Z' && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled)
}

// laddr returns the laddr= field of a CLIENT INFO line.
func laddr(info string) string {
	for _, f := range strings.Fields(info) {
		if v, ok := strings.CutPrefix(f, "laddr="); ok {
			return v
		}
	}
	return ""
}

// sortOps orders operations by invocation time (then id).
func sortOps(ops []Op) {
	sort.SliceStable(ops, func(i, j int) bool {
		if !ops[i].Invoke.Equal(ops[j].Invoke) {
			return ops[i].Invoke.Before(ops[j].Invoke)
		}
		return ops[i].ID < ops[j].ID
	})
}
