package runtime

import (
	"context"
	"fmt"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/core"
)

// persister writes every Persist to the original config file and reports
// PersistDone to the loop. It owns a clone of the loaded config, so the
// user's server options are rewritten exactly as loaded.
func (r *Runtime) persister() {
	defer r.wg.Done()
	base := r.opts.Config.Clone()
	for {
		select {
		case p := <-r.persists:
			err := r.writeConfig(base, p.State)
			select {
			case r.internal <- core.PersistDone{Seq: p.Seq, Err: err}:
			case <-r.stopped:
				return
			}
		case <-r.stopped:
			return
		}
	}
}

func (r *Runtime) writeConfig(base *config.Config, st core.State) error {
	c := base.Clone()
	applyState(c, st)
	if err := config.Rewrite(r.opts.ConfigPath, c); err != nil {
		err = fmt.Errorf("runtime: rewrite %s: %w", r.opts.ConfigPath, err)
		r.log.Log(context.Background(), LevelWarning, "WARNING: Sentinel was not able to save the new configuration on disk!!!: "+err.Error())
		return err
	}
	r.log.Log(context.Background(), LevelNotice, "Sentinel new configuration saved on disk")
	return nil
}
