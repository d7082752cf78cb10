package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gosentinel/gosentinel/internal/ops"
	"github.com/spf13/cobra"
)

func init() { register(newWatchCmd) }

func newWatchCmd() *cobra.Command {
	ops.SilenceDriverLogs()
	var (
		asJSON      bool
		noColor     bool
		duration    time.Duration
		untilSwitch bool
		master      string
	)
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Merge and print the event streams of all given sentinels, with failover timelines",
		Long: "watch subscribes to every --sentinel (PSUBSCRIBE *), prints each event with a ms timestamp and its source, " +
			"and follows each failover from +sdown to +switch-master with durations since its first event. " +
			"It reconnects to sentinels that drop and runs until Ctrl-C, --duration, or --until-switch. " +
			"Exit status: 0, or 1 when --until-switch ended without a switch.",
		Args: cobra.NoArgs,
	}
	o := ops.BindConnFlags(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per event (and per timeline step)")
	cmd.Flags().BoolVar(&noColor, "no-color", false, "never colour the output")
	cmd.Flags().DurationVar(&duration, "duration", 0, "stop after this long (0: until Ctrl-C)")
	cmd.Flags().BoolVar(&untilSwitch, "until-switch", false, "stop after the first +switch-master")
	cmd.Flags().StringVar(&master, "master", "", "only show events about this master")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx, stop := signal.NotifyContext(contextOf(cmd), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if duration > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, duration)
			defer cancel()
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		out := cmd.OutOrStdout()
		pr := &ops.EventPrinter{W: out, Color: !noColor && !asJSON && isTerminal(out)}
		enc := json.NewEncoder(out)
		tl := ops.NewTimeline()
		switched := false
		sink := func(e ops.Event) {
			if master != "" && !e.Meta && e.MasterName != master {
				return
			}
			if asJSON {
				_ = enc.Encode(struct {
					Kind string `json:"kind"`
					ops.Event
				}{"event", e})
			} else {
				pr.Event(e)
			}
			if s, f, ok := tl.Add(e); ok {
				if asJSON {
					_ = enc.Encode(struct {
						Kind   string `json:"kind"`
						Master string `json:"master"`
						ops.Step
					}{"step", f.Master, s})
				} else {
					pr.Step(s, f)
				}
				if f.Complete && untilSwitch && !switched {
					switched = true
					cancel()
				}
			}
		}
		_, done, err := ops.Watch(ctx, o, sink)
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		<-done
		if !asJSON {
			for _, f := range tl.Failovers() {
				fmt.Fprint(out, "\n"+f.String())
			}
		}
		if untilSwitch && !switched {
			return exitError{code: 1}
		}
		return nil
	}
	return cmd
}

// contextOf returns the command's context, or Background when run without one.
func contextOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// isTerminal reports whether w is a character device (a TTY).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
