package workload

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The writer kinds beyond the single list append (scenario H5): a
// pipeline of appends, a MULTI/EXEC transaction of two appends, and a
// queue fed with LPUSH + WAIT 1 and drained with BRPOP. Every id is still
// one Op, classified as in writeop.go from its own reply and from how many
// times it reached a socket.

// PipelineDepth is how many RPUSHes one ModePipeline operation sends.
const PipelineDepth = 4

// QueueKeys are the lists of the queue writer w (its consumer takes from
// them only).
func QueueKeys(w string) []string {
	return []string{"queue:" + w + ":0", "queue:" + w + ":1"}
}

// queueBlock is BRPOP's timeout: 1 s, the least go-redis sends (it
// truncates shorter ones); both clients extend the read deadline of a
// blocking command by its timeout.
const queueBlock = time.Second

// idsPerOp is how many ids one operation of the writer's mode uses.
func (w *Writer) idsPerOp() int {
	switch w.cfg.Mode {
	case ModePipeline:
		return PipelineDepth
	case ModeMulti:
		return 2
	}
	return 1
}

// record appends finished operations.
func (w *Writer) record(ops ...Op) {
	w.mu.Lock()
	w.ops = append(w.ops, ops...)
	w.mu.Unlock()
}

// writeKind runs one operation of a pipeline, multi or queue writer,
// using ids seq .. seq+idsPerOp-1.
func (w *Writer) writeKind(seq int) []Op {
	ctx, cancel := w.opContext()
	defer cancel()
	ids := make([]string, w.idsPerOp())
	keys := make([]string, len(ids))
	for i := range ids {
		ids[i] = w.cfg.Name + "-" + strconv.Itoa(seq+i)
		keys[i] = "log:" + strconv.Itoa((seq+i)%w.cfg.Keys)
		w.tracker.begin(ids[i])
	}
	if w.cfg.Mode == ModeQueue {
		qk := QueueKeys(w.cfg.Name)
		keys[0] = qk[seq%len(qk)]
	}
	invoke := time.Now()
	var pushes []*redis.IntCmd
	var wait, info *redis.Cmd
	var err error
	switch w.cfg.Mode {
	case ModePipeline:
		_, err = w.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := range ids {
				pushes = append(pushes, p.RPush(ctx, keys[i], ids[i]))
			}
			info = p.Do(ctx, "CLIENT", "INFO")
			return nil
		})
	case ModeMulti:
		// CLIENT INFO inside the transaction: it runs in EXEC, on the
		// node that applied the two appends.
		_, err = w.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			for i := range ids {
				pushes = append(pushes, p.RPush(ctx, keys[i], ids[i]))
			}
			info = p.Do(ctx, "CLIENT", "INFO")
			return nil
		})
	case ModeQueue:
		_, err = w.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			pushes = append(pushes, p.LPush(ctx, keys[0], ids[0]))
			wait = p.Do(ctx, "WAIT", 1, w.cfg.WaitTimeout.Milliseconds())
			info = p.Do(ctx, "CLIENT", "INFO")
			return nil
		})
	}
	complete := time.Now()
	ops := make([]Op, len(ids))
	for i, id := range ids {
		op := Op{Writer: w.cfg.Name, ID: id, Key: keys[i], Invoke: invoke, Complete: complete, Replicas: -1}
		op.Sent = w.tracker.end(id)
		want := 0
		var wc *redis.Cmd
		switch w.cfg.Mode {
		case ModeMulti:
			op.Tx = ids[0]
		case ModeQueue:
			op.Kind, want, wc = KindEnqueue, 1, wait
		}
		classify(&op, err, pushes[i], wc, info, want)
		ops[i] = op
	}
	return ops
}

// consume is the queue writer's consumer: BRPOP on its lists until ctx
// ends, one Op of KindDequeue per delivered id (empty pops are not
// recorded). BRPOP runs alone on a dedicated connection, followed by
// CLIENT INFO on the same connection: both clients extend the read
// deadline of a lone blocking command by its timeout, but go-redis does
// not inside a pipeline, where a BRPOP blocking longer than ReadTimeout
// times out and is resent (each resend may take an id whose reply is
// then lost). BRPOP carries one more key, a token unique to the attempt
// that no list has, so the send tracker tells a pop that never left the
// process (fail) from one that may have taken an id (unknown).
func (w *Writer) consume(ctx context.Context) {
	defer w.wg.Done()
	keys := QueueKeys(w.cfg.Name)
	cn := w.rdb.Conn()
	defer func() { _ = cn.Close() }()
	for n := 1; ctx.Err() == nil; n++ {
		token := w.cfg.Name + "-pop" + strconv.Itoa(n)
		w.tracker.begin(token)
		octx, cancel := w.opContext()
		op := Op{Writer: w.cfg.Name, Kind: KindDequeue, Replicas: -1, Invoke: time.Now()}
		pop := cn.BRPop(octx, queueBlock, append(append([]string(nil), keys...), token)...)
		op.Complete = time.Now()
		op.Sent = w.tracker.end(token)
		perr := pop.Err()
		if perr == nil || errors.Is(perr, redis.Nil) {
			if s, e := cn.Do(octx, "CLIENT", "INFO").Text(); e == nil {
				op.Node = laddr(s)
			}
		}
		cancel()
		switch {
		case perr == nil && len(pop.Val()) == 2:
			op.Key, op.ID, op.Result = pop.Val()[0], pop.Val()[1], ResultOK
		case errors.Is(perr, redis.Nil):
			continue // nothing to take
		case perr == nil:
			op.Result, op.Err = ResultUnknown, "BRPOP: unexpected reply"
		case op.Sent == 0 || (op.Sent == 1 && isErrorReply(perr)):
			op.Result, op.Err = ResultFail, perr.Error()
		default:
			op.Result, op.Err = ResultUnknown, perr.Error()
		}
		w.record(op)
		if op.Result != ResultOK {
			// A fresh connection (the old one may be dead or on the old
			// master), and no spinning while the cluster has no master.
			_ = cn.Close()
			cn = w.rdb.Conn()
			t := time.NewTimer(50 * time.Millisecond)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
		}
	}
}
