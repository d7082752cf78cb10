package faultlab

import (
	"context"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
)

// c7Rounds is the number of swizzle-clog rounds.
const c7Rounds = 10

// c7Schedule is FoundationDB's "swizzle-clog" on T5: each round picks a
// seeded random subset (1–3) of the five sentinel hosts (h1–h3 also carry
// the redis nodes), clogs them one by one (each isolated from every other
// host, packets dropped) 0.2–1.2 s apart, holds 1–4 s, then unclogs them
// in a random order, again 0.2–1.2 s apart.
func c7Schedule(ctx context.Context, e *Env) error {
	hosts := e.Top.SentinelHosts
	gap := func() time.Duration { return 200*time.Millisecond + time.Duration(e.Rand.Int64N(int64(time.Second))) }
	clogs := 0
	for round := 0; round < c7Rounds; round++ {
		n := 1 + e.Rand.IntN(3)
		subset := e.Rand.Perm(len(hosts))[:n]
		heals := map[int]func() error{}
		for _, i := range subset {
			e.Fault()
			heal, err := e.Lab.Isolate(e.Top.Hosts(hosts[i]), netlab.Drop)
			if err != nil {
				return err
			}
			heals[i] = e.Track(heal)
			clogs++
			if err := e.Sleep(ctx, gap()); err != nil {
				return err
			}
		}
		if err := e.Sleep(ctx, time.Second+time.Duration(e.Rand.Int64N(int64(3*time.Second)))); err != nil {
			return err
		}
		order := append([]int(nil), subset...)
		e.Rand.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for k, i := range order {
			if err := heals[i](); err != nil {
				return err
			}
			if k < len(order)-1 || round < c7Rounds-1 {
				if err := e.Sleep(ctx, gap()); err != nil {
					return err
				}
			}
		}
	}
	e.Set("clogs", float64(clogs))
	e.Heal()
	return nil
}

func init() {
	register(&Scenario{
		ID: "C7", Title: "swizzle-clog (T5)", ExpectFailover: true, AnyFailovers: true, Settle: 60 * time.Second,
		Setup:    Setup{Sentinels: 5},
		Fault:    "10 rounds: clog (isolate, drop) a seeded random subset of 1–3 of the five hosts one by one, hold 1–4 s, unclog them in random order",
		Expected: "any number of failovers, never two masters by quorum; converges after the last unclog",
		Schedule: c7Schedule,
		Criteria: []Criterion{convAfterHealWithin(15)},
	})
}
