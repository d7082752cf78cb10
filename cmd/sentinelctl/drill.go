package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gosentinel/gosentinel/internal/ops"
	"github.com/spf13/cobra"
)

func init() { register(newDrillCmd) }

func newDrillCmd() *cobra.Command {
	ops.SilenceDriverLogs()
	var (
		d       ops.DrillOptions
		asJSON  bool
		cli     string
		quiet   bool
		noColor bool
	)
	cmd := &cobra.Command{
		Use:   "drill <master-name>",
		Short: "Run a controlled failover while writing through a Sentinel-aware client, and report what the client saw",
		Long: "drill resolves the master, starts writing (one write per --interval, unique keys with a 10 min TTL, " +
			"each as MULTI/SET/ROLE/EXEC) through a Sentinel-aware client, then triggers a failover with SENTINEL FAILOVER " +
			"(or, with --kill, SIGKILLs the local master process found by its port, or --pid). It reports the addresses before and after, " +
			"the time to +switch-master, the client's write gap, failed writes, acknowledged writes missing on the new master (lost), " +
			"writes acknowledged by a non-master, and pool flushes when the client exposes them. " +
			"Exit status: 0 passed, 1 the failover completed but a check failed, 2 the failover did not complete.",
		Args: cobra.ExactArgs(1),
	}
	d.Conn = ops.BindConnFlags(cmd.Flags())
	f := cmd.Flags()
	f.BoolVar(&d.Kill, "kill", false, "SIGKILL the master process (local only, found by port) instead of SENTINEL FAILOVER")
	f.IntVar(&d.PID, "pid", 0, "with --kill: the PID to kill")
	f.BoolVar(&d.Coordinated, "coordinated", false, "send SENTINEL FAILOVER <master> COORDINATED (the primary hands over with FAILOVER TO: no acknowledged write lost)")
	f.DurationVar(&d.Timeout, "wait", 60*time.Second, "how long to wait for +switch-master")
	f.DurationVar(&d.Settle, "settle", time.Second, "keep writing this long after the client writes to the new master")
	f.DurationVar(&d.Interval, "interval", time.Millisecond, "interval between writes")
	f.IntVar(&d.MaxLost, "max-lost", -1, "fail when more acknowledged writes are lost (-1: report only)")
	f.StringVar(&cli, "client", "gosentinel", "client the writes go through: gosentinel (package client) or go-redis (redis.NewFailoverClient)")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&quiet, "quiet", false, "do not print progress and events")
	f.BoolVar(&noColor, "no-color", false, "never colour the output")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		nc, err := ops.ClientByName(cli)
		if err != nil {
			return err
		}
		d.NewClient = nc
		if d.PID != 0 && !d.Kill {
			return errors.New("drill: --pid needs --kill")
		}
		if d.Coordinated && d.Kill {
			return errors.New("drill: --coordinated and --kill exclude each other")
		}
		d.Master = args[0]
		ctx, stop := signal.NotifyContext(contextOf(cmd), os.Interrupt, syscall.SIGTERM)
		defer stop()
		out := cmd.OutOrStdout()
		var progress io.Writer = cmd.ErrOrStderr()
		if quiet {
			progress = nil
		} else {
			d.Progress = progress
			pr := &ops.EventPrinter{W: progress, Color: !noColor && isTerminal(progress)}
			d.OnEvent = pr.Event
		}
		rep, err := ops.RunDrill(ctx, d)
		if rep == nil {
			return fmt.Errorf("drill: %w", err)
		}
		if asJSON {
			if err := writeJSON(out, rep); err != nil {
				return fmt.Errorf("drill: %w", err)
			}
		} else {
			ops.WriteDrillReport(out, rep)
		}
		switch {
		case !rep.Completed:
			return exitError{code: 2}
		case !rep.Passed():
			return exitError{code: 1}
		}
		return nil
	}
	return cmd
}
