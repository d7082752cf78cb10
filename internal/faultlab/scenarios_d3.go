package faultlab

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// d3SetValue is what D3's SENTINEL SET writes (2000 is the lab's value:
// the difference only shows whether the file was written).
const d3SetValue = "2001"

// d3SaveWords are what a sentinel's log says when it could not save its
// config (redis: "WARNING: Sentinel was not able to save the new
// configuration on disk!!!: Device or resource busy").
var d3SaveWords = []string{"not able to save", "device or resource busy", "ebusy", "failed to save", "persist"}

func init() {
	register(&Scenario{
		ID: "D3", Title: "single-file bind mount (EBUSY on rename)", ExpectFailover: true,
		Setup:    Setup{ConfFileBind: true},
		Fault:    "every sentinel.conf is a single-file bind mount (rename over it: EBUSY); SENTINEL SET on each, SIGKILL the master; restart the sentinel of h3 after the failover",
		Expected: "in-place rewrite or a hard error: never OK while unsaved; the failover is on disk or the failure is reported",
		Schedule: func(ctx context.Context, e *Env) error {
			okUnsaved, refused := 0, 0
			for _, h := range e.Top.SentinelHosts {
				_, err := e.Top.SentinelDo(ctx, h, "SENTINEL", "SET", MasterName, "down-after-milliseconds", d3SetValue)
				data, rerr := os.ReadFile(e.Top.SentinelConfPath(h))
				saved := rerr == nil && strings.Contains(string(data), "down-after-milliseconds "+MasterName+" "+d3SetValue)
				if err != nil {
					refused++
					e.Note("SENTINEL SET on %s: %v", h, err)
				} else if !saved {
					okUnsaved++
				}
			}
			e.Set("set_refused", float64(refused))
			e.Set("set_ok_unsaved", float64(okUnsaved))
			m, err := killMaster(ctx, e, "h1")
			if err != nil {
				return err
			}
			// Let every sentinel adopt the switch and rewrite its file.
			if _, err := e.WaitConverged(ctx, 30*time.Second); err != nil {
				return err
			}
			if err := e.Sleep(ctx, 2*time.Second); err != nil {
				return err
			}
			onDisk := 0
			for _, h := range e.Top.SentinelHosts {
				data, err := os.ReadFile(e.Top.SentinelConfPath(h))
				if err == nil && strings.Contains(string(data), "sentinel monitor "+MasterName+" "+e.Top.origIP[m]+" ") {
					onDisk++
				}
			}
			e.Set("failover_on_disk", float64(onDisk))
			if err := e.Top.Kill("sentinel-h3"); err != nil {
				return err
			}
			err = e.Top.StartSentinel("h3")
			e.Heal()
			return err
		},
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			// A sentinel whose file does not hold the failover must have
			// said so in its log.
			unreported := 0
			for _, h := range top.SentinelHosts {
				data := in.ConfigFiles["sentinel-"+h]
				if !strings.Contains(string(data), "sentinel monitor "+MasterName+" "+top.origIP["h1"]+" ") {
					continue // the failover reached the file
				}
				if !logMentions(top, "sentinel-"+h, d3SaveWords...) {
					unreported++
				}
			}
			r.Extra["unsaved_unreported"] = float64(unreported)
		},
		Criteria: []Criterion{extraEquals("set_ok_unsaved", 0, "never OK while unsaved"),
			extraEquals("unsaved_unreported", 0, "the failover is on disk or the failure is logged")},
	})
}
