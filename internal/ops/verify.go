package ops

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// finish resolves the new master, checks its role and looks for lost
// writes, filling rep.
func (d *DrillOptions) finish(ctx context.Context, rep *DrillReport, recs []writeRec) {
	o := d.Conn
	after, err := ResolveMaster(ctx, o, d.Master)
	if err != nil {
		rep.Problems = append(rep.Problems, "cannot resolve the master after the drill: "+err.Error())
		return
	}
	rep.After = after
	if rep.Completed && after == rep.Before {
		rep.Problems = append(rep.Problems, "sentinels still name the old master "+after)
	}
	c, err := o.NodeClient(after)
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
		return
	}
	defer c.Close()
	if v, err := c.Do(ctx, "ROLE").Slice(); err == nil && len(v) > 0 {
		rep.AfterRole = replyString(v[0])
	} else {
		rep.AfterRole = "unknown"
	}
	if rep.AfterRole != "master" {
		rep.Problems = append(rep.Problems, fmt.Sprintf("%s reports ROLE %s, not master", after, rep.AfterRole))
	}
	if rep.Writes.NonMasterAcks > 0 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("%d write(s) acknowledged by a non-master", rep.Writes.NonMasterAcks))
	}
	if !rep.Completed || rep.AfterRole != "master" {
		return
	}
	keys := ackedKeys(recs)
	missing, err := missingKeys(ctx, c, keys)
	rep.LostChecked = len(keys)
	if err != nil {
		rep.LostError = err.Error()
		return
	}
	rep.Lost = len(missing)
	rep.LostSample = missing[:min(len(missing), 5)]
	if d.MaxLost >= 0 && rep.Lost > d.MaxLost {
		rep.Problems = append(rep.Problems, fmt.Sprintf("%d acknowledged write(s) lost (allowed: %d)", rep.Lost, d.MaxLost))
	}
	d.progress("checked %d acknowledged keys on %s: %d lost", len(keys), after, len(missing))
}

// missingKeys returns the keys that do not exist on c, checked with
// pipelined EXISTS in batches.
func missingKeys(ctx context.Context, c *redis.Client, keys []string) ([]string, error) {
	var missing []string
	const batch = 1000
	for i := 0; i < len(keys); i += batch {
		chunk := keys[i:min(i+batch, len(keys))]
		cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range chunk {
				p.Exists(ctx, k)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("EXISTS on the new master: %w", err)
		}
		for j, cmd := range cmds {
			ic, ok := cmd.(*redis.IntCmd)
			if !ok {
				return nil, fmt.Errorf("EXISTS on the new master: unexpected reply type %T", cmd)
			}
			if n, _ := ic.Result(); n == 0 {
				missing = append(missing, chunk[j])
			}
		}
	}
	return missing, nil
}
