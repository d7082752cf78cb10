package faultlab

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// Helpers of the client scenarios H4–H6: figures computed from the
// recorded operations and the sampler's ROLE samples.

// roleAnsweredBefore is the role in the latest ROLE reply of redis host h
// that came back at or before t (so the node was in that role at some
// instant before t), if it answered and was sent at most 1 s before t
// ("" otherwise).
func roleAnsweredBefore(samples map[string][]workload.Sample, h string, t time.Time) string {
	l := samples[h]
	for i := sort.Search(len(l), func(i int) bool { return l[i].At.After(t) }) - 1; i >= 0 && t.Sub(l[i].At) <= time.Second; i-- {
		done := l[i].Done
		if done.IsZero() {
			done = l[i].At
		}
		if done.After(t) {
			continue // answered after t: the node may have changed since
		}
		if l[i].Err != "" {
			return ""
		}
		return l[i].Role
	}
	return ""
}

// roleSentAfter is the role in the first ROLE request sent to redis host h
// at or after t (so the node was in that role at some instant after t), if
// it answered and was sent at most 1 s after t ("" otherwise).
func roleSentAfter(samples map[string][]workload.Sample, h string, t time.Time) string {
	l := samples[h]
	i := sort.Search(len(l), func(i int) bool { return !l[i].At.Before(t) })
	if i >= len(l) || l[i].At.Sub(t) > time.Second || l[i].Err != "" {
		return ""
	}
	return l[i].Role
}

// redisSamples groups the redis samples by target (host name), by time.
func redisSamples(in *workload.Input) map[string][]workload.Sample {
	out := map[string][]workload.Sample{}
	for _, s := range in.Samples {
		if s.Kind == workload.KindRedis {
			out[s.Target] = append(out[s.Target], s)
		}
	}
	for _, l := range out {
		sort.SliceStable(l, func(i, j int) bool { return l[i].At.Before(l[j].At) })
	}
	return out
}

// acksOnReplica counts, per writer, the acknowledged writes that a node
// executed while it was a replica the whole time: a ROLE answered before
// the write was sent said slave, and the first ROLE sent after its
// acknowledgement came back still said slave (a node does not go from
// replica to master and back within one 50 ms sampling period). Redis
// refuses writes on a read-only replica (READONLY), so any such ack is a
// write the client sent to a replica that accepted it. The sample just
// before the completion is no evidence: a replica promoted between two
// samples acknowledges a fast client's first writes before the sampler
// sees it as a master (H6: our client wrote to the new master 20 ms after
// its promotion, between a sample that said slave and the next that said
// master).
func acksOnReplica(in *workload.Input, hostOf func(addr string) string) map[string]int {
	samples := redisSamples(in)
	out := map[string]int{}
	for _, op := range in.Ops {
		if op.Result != workload.ResultOK || op.Node == "" {
			continue
		}
		h := hostOf(op.Node)
		if h == "" {
			continue
		}
		if roleAnsweredBefore(samples, h, op.Invoke) == "slave" && roleSentAfter(samples, h, op.Complete) == "slave" {
			out[op.Writer]++
		}
	}
	return out
}

// setAcksOnReplica records acks_on_replica (total) and one figure per writer.
func setAcksOnReplica(r *RunResult, in *workload.Input, top *Topology) {
	n := 0
	for w, c := range acksOnReplica(in, top.HostOf) {
		r.Extra["acks_on_replica_"+w] = float64(c)
		n += c
	}
	r.Extra["acks_on_replica"] = float64(n)
}

// errorReplies counts, per writer, the operations invoked in [from, to]
// whose error contains prefix (e.g. "READONLY"; "" = any error).
func errorReplies(in *workload.Input, from, to time.Time, prefix string) map[string]int {
	out := map[string]int{}
	for _, op := range in.Ops {
		if op.Err == "" || (!from.IsZero() && op.Invoke.Before(from)) || (!to.IsZero() && op.Invoke.After(to)) {
			continue
		}
		if strings.Contains(op.Err, prefix) {
			out[op.Writer]++
		}
	}
	return out
}

// recoveryAfter is, per writer, the time from t0 to the acknowledgement of
// the writer's first write invoked after t0 and acknowledged by node
// (ip:port, canonical); -1 when there is none.
func recoveryAfter(in *workload.Input, top *Topology, t0 time.Time, node string) map[string]float64 {
	out := map[string]float64{}
	for _, op := range in.Ops {
		if _, ok := out[op.Writer]; !ok {
			out[op.Writer] = -1
		}
		if op.Result != workload.ResultOK || op.Invoke.Before(t0) || op.Node == "" {
			continue
		}
		if top.HostOf(op.Node) != top.HostOf(node) {
			continue
		}
		d := secs(op.Complete.Sub(t0))
		if cur := out[op.Writer]; cur < 0 || d < cur {
			out[op.Writer] = d
		}
	}
	return out
}

// unixAt and atUnix carry instants of the schedule through Env.Set
// (milliseconds since the epoch); Post removes them from the figures.
func unixAt(t time.Time) float64 { return float64(t.UnixMilli()) }

func atUnix(r *RunResult, name string) (time.Time, bool) {
	v, ok := r.Extra[name]
	if !ok {
		return time.Time{}, false
	}
	delete(r.Extra, name)
	return time.UnixMilli(int64(v)), true
}

// noAckOnReplica: no write acknowledged by a node sampled as a replica.
func noAckOnReplica() Criterion {
	return Criterion{Name: "0 acked writes on a node reporting role:slave", Check: func(r *RunResult) (bool, string) {
		v, ok := r.Extra["acks_on_replica"]
		if !ok {
			return false, "acks_on_replica not measured"
		}
		return v == 0, fmt.Sprintf("acks_on_replica = %g", v)
	}}
}

// extraPerWriterAtMost: the figure name+"_"+writer of each listed writer
// is measured, ≥ 0 (-1 = never) and ≤ max.
func extraPerWriterAtMost(name string, writers []string, max float64, label string) Criterion {
	return Criterion{Name: label, Check: func(r *RunResult) (bool, string) {
		ok := true
		var parts []string
		for _, w := range writers {
			v, have := r.Extra[name+"_"+w]
			parts = append(parts, fmt.Sprintf("%s:%g", w, v))
			if !have || v < 0 || v > max {
				ok = false
			}
		}
		return ok, name + " " + strings.Join(parts, " ")
	}}
}
