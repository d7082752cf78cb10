package runtime

import (
	"context"
	"fmt"
	"strings"

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
	if c.Server.ACLFile == "" {
		// Like rewriteConfigUserOption: the live users (ACL SETUSER,
		// DELUSER, default off...), not the ones loaded at start.
		c.Server.Users = liveUsers(r.srv.ACLUsers())
	}
	if err := config.Rewrite(r.opts.ConfigPath, c); err != nil {
		err = fmt.Errorf("runtime: rewrite %s: %w", r.opts.ConfigPath, err)
		r.log.Log(context.Background(), LevelWarning, "WARNING: Sentinel was not able to save the new configuration on disk!!!: "+err.Error())
		return err
	}
	r.log.Log(context.Background(), LevelNotice, "Sentinel new configuration saved on disk")
	return nil
}

// liveUsers turns the server's "user <name> <rule>..." lines (ACL LIST
// form: names and rules never contain spaces) into config users.
func liveUsers(lines []string) []config.User {
	out := make([]config.User, 0, len(lines))
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "user" {
			continue
		}
		out = append(out, config.User{Name: f[1], Rules: f[2:]})
	}
	return out
}
