package faultlab

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// H5: blocking commands, pipelines and MULTI/EXEC across a failover
// (SIGKILL of the master), through both clients. Every id is recorded
// Jepsen-style (invoke, then ok / fail / unknown): pipelines of 4 RPUSHes,
// MULTI + 2 RPUSH + EXEC transactions (all or nothing: W2), and a queue
// fed with LPUSH + WAIT 1 and drained by one BRPOP consumer per client.
func init() {
	var writers []WriterSpec
	for _, c := range []struct {
		prefix string
		kind   workload.ClientKind
	}{{"gs", workload.ClientGosentinel}, {"gr", workload.ClientGoRedis}} {
		writers = append(writers,
			WriterSpec{Name: c.prefix + "-pipe", Host: "c1", Client: c.kind, Mode: workload.ModePipeline, Rate: 25},
			WriterSpec{Name: c.prefix + "-multi", Host: "c1", Client: c.kind, Mode: workload.ModeMulti, Rate: 25},
			WriterSpec{Name: c.prefix + "-queue", Host: "c1", Client: c.kind, Mode: workload.ModeQueue, Rate: 50},
		)
	}
	register(&Scenario{
		ID: "H5", Title: "blocking commands, pipelines, MULTI across a failover", ExpectFailover: true,
		Setup:    Setup{Writers: writers},
		Fault:    "SIGKILL the master under pipelines of 4 RPUSHes, MULTI/EXEC of 2 RPUSHes and a BRPOP queue (LPUSH + WAIT 1), both clients",
		Expected: "no silent duplicates; errors surfaced (an operation whose outcome is unknown is reported unknown, never ok); transactions all or nothing",
		Schedule: func(ctx context.Context, e *Env) error {
			_, err := killMaster(ctx, e, "h1")
			e.Heal()
			return err
		},
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			h5Post(r, in, top, writers)
		},
		Criteria: []Criterion{noMisclassified(),
			{Name: "our client: no silent duplicate (an id applied twice)", Check: func(r *RunResult) (bool, string) {
				return h5Sum(r, "gs-", "duplicates") == 0, h5Figures(r, "duplicates")
			}},
			{Name: "our client: queue losses accounted for by pops reported unknown", Check: func(r *RunResult) (bool, string) {
				lost, ok := r.Extra["queue_lost_gs-queue"]
				unk := r.Extra["queue_unknown_pops_gs-queue"]
				return ok && lost <= unk, fmt.Sprintf("lost %g, unknown pops %g", lost, unk)
			}},
			{Name: "queue: delivered ids were enqueued", Check: func(r *RunResult) (bool, string) {
				return h5Sum(r, "", "queue_phantom") == 0, h5Figures(r, "queue_phantom")
			}},
			{Name: "our client: every kind recovers ≤ RTO_conv + 2 s", Check: func(r *RunResult) (bool, string) {
				conv := r.Figures.RTOConvS
				ok := conv >= 0
				var parts []string
				for _, w := range []string{"gs-pipe", "gs-multi", "gs-queue"} {
					v := r.ByWriter[w].RTOClientS
					parts = append(parts, fmt.Sprintf("%s:%.2f", w, v))
					if v < 0 || v > conv+2 {
						ok = false
					}
				}
				return ok, fmt.Sprintf("RTO_conv %.2f; %s", conv, strings.Join(parts, " "))
			}},
		},
	})
}

// h5Post reads the queue writers' lists back from the final master and
// sets, per writer: duplicates (ids applied twice: in the final read, or
// delivered/remaining twice after a resent LPUSH), torn transactions, and
// the queue figures of workload.CheckQueue.
func h5Post(r *RunResult, in *workload.Input, top *Topology, writers []WriterSpec) {
	final := map[string]int{}
	for _, ids := range in.Final {
		for _, id := range ids {
			final[id]++
		}
	}
	dups := map[string]int{}
	for id, n := range final {
		if n > 1 {
			if i := strings.LastIndexByte(id, '-'); i > 0 {
				dups[id[:i]]++
			}
		}
	}
	torn := map[string]int{}
	for _, v := range r.Violations {
		if v.ID == "W2" {
			for _, ws := range writers {
				if strings.Contains(v.Detail, " "+ws.Name+"-") {
					torn[ws.Name]++
				}
			}
		}
	}
	master := ""
	if in.FinalMaster != "" {
		master = top.HostOf(in.FinalMaster)
	}
	byWriter := map[string][]workload.Op{}
	for _, op := range in.Ops {
		byWriter[op.Writer] = append(byWriter[op.Writer], op)
	}
	for _, ws := range writers {
		r.Extra["torn_tx_"+ws.Name] = float64(torn[ws.Name])
		if ws.Mode != workload.ModeQueue {
			r.Extra["duplicates_"+ws.Name] = float64(dups[ws.Name])
			continue
		}
		if master == "" {
			r.Notes = append(r.Notes, "queue "+ws.Name+": no final master, not checked")
			continue
		}
		remaining := map[string][]string{}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		for _, k := range workload.QueueKeys(ws.Name) {
			v, err := top.RedisDo(ctx, master, "LRANGE", k, 0, -1)
			if err != nil {
				r.Notes = append(r.Notes, fmt.Sprintf("queue %s: LRANGE %s: %v", ws.Name, k, err))
				continue
			}
			if l, ok := v.([]any); ok {
				for _, x := range l {
					remaining[k] = append(remaining[k], fmt.Sprint(x))
				}
			}
		}
		cancel()
		q := workload.CheckQueue(byWriter[ws.Name], remaining)
		n := ws.Name
		r.Extra["queue_enqueued_ok_"+n] = float64(q.EnqueuedOK)
		r.Extra["queue_delivered_"+n] = float64(q.Delivered)
		r.Extra["queue_lost_"+n] = float64(q.Lost)
		r.Extra["queue_unknown_pops_"+n] = float64(q.UnknownPops)
		r.Extra["queue_redelivered_"+n] = float64(q.DupRedelivered)
		r.Extra["queue_phantom_"+n] = float64(q.Phantom)
		r.Extra["duplicates_"+n] = float64(q.DupResent)
	}
	// Unknown outcomes per writer: reported, never ok.
	for _, ws := range writers {
		if w, ok := r.ByWriter[ws.Name]; ok {
			r.Extra["unknown_"+ws.Name] = float64(w.Unknown)
		}
	}
}

// h5Sum adds the figure name_<writer> over the writers whose name starts
// with prefix.
func h5Sum(r *RunResult, prefix, name string) float64 {
	s := 0.0
	for k, v := range r.Extra {
		if w, ok := strings.CutPrefix(k, name+"_"); ok && strings.HasPrefix(w, prefix) {
			s += v
		}
	}
	return s
}

// h5Figures lists name_<writer> for every writer.
func h5Figures(r *RunResult, name string) string {
	var parts []string
	for k, v := range r.Extra {
		if w, ok := strings.CutPrefix(k, name+"_"); ok {
			parts = append(parts, fmt.Sprintf("%s:%g", w, v))
		}
	}
	sort.Strings(parts)
	return name + " " + strings.Join(parts, " ")
}
