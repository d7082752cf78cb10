package faultlab

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// H4: the master answers LOADING, then (after a failover the clients do not
// hear about) the old master answers MASTERDOWN and READONLY, for real:
//
//   - LOADING: h1, the master, holds 300 k extra keys (DEBUG POPULATE, not
//     replicated), BGSAVEs and reloads the RDB (DEBUG RELOAD NOSAVE: a
//     load during which every command but a few gets -LOADING).
//     Sentinels count -LOADING as a valid PING reply: no failover.
//   - The clients lose every sentinel (c1 → port 26379 dropped, so no
//     +switch-master reaches them), h1 loses its outgoing connections to
//     h2 and h3 on 6379, and SENTINEL FAILOVER promotes h2 (h3 has a worse
//     replica-priority). Right after the switch the lab sends h1 the
//     REPLICAOF the sentinels would send on their next INFO.
//   - MASTERDOWN: h1 is a replica whose link is down (it cannot reach h2)
//     with replica-serve-stale-data no and replica-read-only no, so a
//     write gets -MASTERDOWN (3 s).
//   - READONLY: replica-read-only yes on h1: a write gets -READONLY (3 s).
//   - The clients reach the sentinels again (rediscovery), then h1 reaches
//     h2 and resynchronises.
//
// The lab confirms each reply with its own probe write on h1 (figures
// *_confirmed). Writes h1 acknowledged while it was still a master that
// the blind clients kept using are lost (LostAck, reported): the failover
// happened behind their back.
func init() {
	writers := []WriterSpec{
		{Name: "gs-plain", Host: "c1", Client: workload.ClientGosentinel, Mode: workload.ModePlain, Rate: 100},
		{Name: "gr-plain", Host: "c1", Client: workload.ClientGoRedis, Mode: workload.ModePlain, Rate: 100},
	}
	register(&Scenario{
		ID: "H4", Title: "READONLY / MASTERDOWN / LOADING replies", ExpectFailover: true, Settle: 40 * time.Second,
		Setup: Setup{Writers: writers, Priority: map[string]int{"h3": 200}, RedisConf: []string{"enable-debug-command yes"}},
		Fault: "BGSAVE + DEBUG RELOAD NOSAVE of the master with 300 k keys (LOADING); clients cut from every sentinel, SENTINEL FAILOVER to h2, h1 demoted " +
			"with its link down: MASTERDOWN (replica-serve-stale-data no) 3 s, READONLY 3 s; then the clients reach the sentinels again",
		Expected: "rediscover + ROLE check; no write acked by a replica",
		Schedule: h4Schedule,
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			setAcksOnReplica(r, in, top)
			windows := []struct{ name, prefix string }{{"loading", "LOADING"}, {"masterdown", "MASTERDOWN"}, {"readonly", "READONLY"}}
			for _, w := range windows {
				from, ok1 := atUnix(r, w.name+"_from")
				to, ok2 := atUnix(r, w.name+"_to")
				if !ok1 || !ok2 {
					continue
				}
				// Replies naming the error, and all errors: a client that
				// retries reports the error of its last attempt.
				n := 0
				for wr, c := range errorReplies(in, from, to.Add(time.Second), w.prefix) {
					r.Extra[w.name+"_replies_"+wr] = float64(c)
					n += c
				}
				r.Extra[w.name+"_replies"] = float64(n)
				for wr, c := range errorReplies(in, from, to.Add(time.Second), "") {
					r.Extra[w.name+"_errors_"+wr] = float64(c)
				}
			}
			if at, ok := atUnix(r, "clients_healed_at"); ok && in.FinalMaster != "" {
				for w, d := range recoveryAfter(in, top, at, in.FinalMaster) {
					r.Extra["rto_after_rediscovery_"+w] = d
				}
			}
		},
		Criteria: []Criterion{noAckOnReplica(), noMisclassified(),
			extraEquals("loading_confirmed", 1, "h1 answered -LOADING during the reload"),
			extraEquals("masterdown_confirmed", 1, "h1 answered -MASTERDOWN"),
			extraEquals("readonly_confirmed", 1, "h1 answered -READONLY"),
			extraPerWriterAtMost("rto_after_rediscovery", []string{"gs-plain"}, 2,
				"our client: writes on the new master ≤ 2 s after the sentinels are reachable again"),
		},
	})
}

func h4Schedule(ctx context.Context, e *Env) error {
	t := e.Top
	mc := &massClients{host: t.Host("obs"), c: map[string]*redis.Client{}}
	defer mc.close()
	h1 := mc.get(t.currentRedisAddr("h1"))
	// LOADING.
	for i := 0; i < 6; i++ {
		if err := h1.Do(ctx, "DEBUG", "POPULATE", 50000, fmt.Sprintf("pad%d", i), 32).Err(); err != nil {
			return fmt.Errorf("DEBUG POPULATE: %w", err)
		}
	}
	_ = h1.Do(ctx, "CONFIG", "SET", "rdbcompression", "no").Err()
	// Serve events (and answer PING with -LOADING) every 64 kB of the load
	// rather than every 2 MB: on this loaded machine a 2 MB step could
	// leave the sentinels without a reply for down-after.
	if err := h1.Do(ctx, "CONFIG", "SET", "loading-process-events-interval-bytes", 65536).Err(); err != nil {
		return fmt.Errorf("CONFIG SET: %w", err)
	}
	// The RDB comes from a BGSAVE (a fork: h1 keeps answering), and DEBUG
	// RELOAD NOSAVE only loads it: a synchronous save would leave h1 silent
	// for seconds on this loaded machine and the sentinels would rightly
	// fail over. Writes acknowledged between the BGSAVE and the reload
	// vanish from h1's own dataset but not from its replicas (the
	// replication stream goes on), and h1 is resynchronised from h2 later.
	if err := h1.Do(ctx, "BGSAVE").Err(); err != nil {
		return fmt.Errorf("BGSAVE: %w", err)
	}
	if err := massWait(ctx, 60*time.Second, func() error {
		info, err := h1.Info(ctx, "persistence").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "rdb_bgsave_in_progress:0") || !strings.Contains(info, "rdb_last_bgsave_status:ok") {
			return fmt.Errorf("BGSAVE not done")
		}
		return nil
	}); err != nil {
		return err
	}
	probe := func(want string) (bool, error) {
		err := t.obs.get(t.currentRedisAddr("h1")).Do(ctx, "SET", "lab:probe", "h4").Err()
		return err != nil && strings.HasPrefix(err.Error(), want), err
	}
	reloadStart := time.Now()
	var wg sync.WaitGroup
	var reloadErr error
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		reloadErr = h1.Do(ctx, "DEBUG", "RELOAD", "NOSAVE").Err()
	}()
	loading := false
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-time.After(20 * time.Millisecond):
			if ok, _ := probe("LOADING"); ok {
				loading = true
			}
		}
	}
	wg.Wait()
	if reloadErr != nil {
		return fmt.Errorf("DEBUG RELOAD: %w", reloadErr)
	}
	e.Set("reload_s", secs(time.Since(reloadStart)))
	e.Set("loading_confirmed", boolf(loading))
	e.Set("loading_from", unixAt(reloadStart))
	e.Set("loading_to", unixAt(time.Now()))
	if err := e.Sleep(ctx, 3*time.Second); err != nil {
		return err
	}
	// Blind the clients, cut h1's way to the future master.
	if err := h1.Do(ctx, "CONFIG", "SET", "replica-read-only", "no", "replica-serve-stale-data", "no").Err(); err != nil {
		return fmt.Errorf("CONFIG SET: %w", err)
	}
	var blind heals
	for _, s := range t.SentinelHosts {
		heal, err := e.Lab.CutPort(t.Host("c1"), t.Host(s), SentinelPort, netlab.Drop)
		if err != nil {
			return err
		}
		blind = append(blind, e.Track(heal))
	}
	var link heals
	for _, h := range []string{"h2", "h3"} {
		heal, err := e.Lab.CutPort(t.Host("h1"), t.Host(h), RedisPort, netlab.Drop)
		if err != nil {
			return err
		}
		link = append(link, e.Track(heal))
	}
	if err := e.Jitter(ctx, 500*time.Millisecond); err != nil {
		return err
	}
	e.Fault()
	if _, err := t.SentinelDo(ctx, "h2", "SENTINEL", "FAILOVER", MasterName); err != nil {
		return fmt.Errorf("SENTINEL FAILOVER: %w", err)
	}
	nm, err := e.WaitSwitch(ctx, "h1", 30*time.Second)
	if err != nil {
		return err
	}
	// A sentinel that reconfigured h1 first ends with CLIENT KILL TYPE
	// normal, which closes the lab's connection too: one more try.
	if err := h1.Do(ctx, "REPLICAOF", t.origIP[nm], RedisPort).Err(); err != nil {
		if err := h1.Do(ctx, "REPLICAOF", t.origIP[nm], RedisPort).Err(); err != nil {
			return fmt.Errorf("REPLICAOF: %w", err)
		}
	}
	// MASTERDOWN.
	mdFrom := time.Now()
	md := false
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		if ok, _ := probe("MASTERDOWN"); ok {
			md = true
		}
		if err := e.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	e.Set("masterdown_confirmed", boolf(md))
	e.Set("masterdown_from", unixAt(mdFrom))
	e.Set("masterdown_to", unixAt(time.Now()))
	// READONLY.
	if err := h1.Do(ctx, "CONFIG", "SET", "replica-read-only", "yes").Err(); err != nil {
		return fmt.Errorf("CONFIG SET: %w", err)
	}
	roFrom := time.Now()
	ro := false
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		if ok, _ := probe("READONLY"); ok {
			ro = true
		}
		if err := e.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	e.Set("readonly_confirmed", boolf(ro))
	e.Set("readonly_from", unixAt(roFrom))
	e.Set("readonly_to", unixAt(time.Now()))
	// Rediscovery.
	if err := blind.run(); err != nil {
		return err
	}
	e.Set("clients_healed_at", unixAt(time.Now()))
	if err := e.Sleep(ctx, 5*time.Second); err != nil {
		return err
	}
	err = link.run()
	e.Heal()
	return err
}
