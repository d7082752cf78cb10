package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
			r.applyLogLevel(p.State.LogLevel)
			allocs, _ := heapStats()
			err := r.writeConfig(base, p.State)
			select {
			case r.internal <- core.PersistDone{Seq: p.Seq, Err: err}:
			case <-r.stopped:
				return
			}
			releaseAfterWrite(allocs) // memrelease.go; after PersistDone: the core does not wait for it
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
		c.Server.Users = liveUsers(r.srv.ACLUsers(), c.Server.RequirePass)
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
//
// config treats a "user default" entry like a line of the file (reset
// first, which adds sanitize-payload), so a default user that was never
// declared and never changed is left out: config then writes it exactly
// as Redis does ("user default on nopass ~* &* +@all", or with
// requirepass' hash). A default user changed at run time without a reset
// (ACL SETUSER default >pw) is written with sanitize-payload, which real
// Sentinel would not show (see test/conformance/FINDINGS.md, "needs from
// config").
func liveUsers(lines []string, requirepass string) []config.User {
	stock := "user default on nopass ~* &* +@all"
	if requirepass != "" {
		h := sha256.Sum256([]byte(requirepass))
		stock = "user default on #" + hex.EncodeToString(h[:]) + " ~* &* +@all"
	}
	out := make([]config.User, 0, len(lines))
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "user" || l == stock {
			continue
		}
		out = append(out, config.User{Name: f[1], Rules: f[2:]})
	}
	return out
}
