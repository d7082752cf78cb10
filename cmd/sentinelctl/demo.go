package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gosentinel/gosentinel/internal/ops"
	"github.com/spf13/cobra"
)

func init() { register(newDemoCmd) }

func newDemoCmd() *cobra.Command {
	ops.SilenceDriverLogs()
	var (
		d       ops.DemoOptions
		asJSON  bool
		cli     string
		noColor bool
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Start a local master, two replicas and three sentinels, kill the master, and report the failover",
		Long: "demo starts on this machine a master and two replicas (redis-server) and three sentinels " +
			"(gosentinel built from ./cmd/gosentinel, or --sentinel-bin, e.g. /usr/bin/redis-sentinel) with down-after 1000 ms, " +
			"writes through a Sentinel-aware client, SIGKILLs the master, and prints the failover timeline and figures " +
			"(kill -> +sdown/+odown/+switch-master, client write gap, failed and lost writes). Everything it started is killed " +
			"and its temp dir removed on exit, also on Ctrl-C/SIGTERM. " +
			"Exit status: 0 the failover completed and the checks passed, 1 a check failed, 2 the failover did not complete or the demo could not run.",
		Args: cobra.NoArgs,
	}
	f := cmd.Flags()
	f.StringVar(&d.SentinelBin, "sentinel-bin", "", "sentinel binary to run (default: build gosentinel from ./cmd/gosentinel)")
	f.StringVar(&d.RedisServer, "redis-server", "", "redis-server binary (default: from PATH)")
	f.DurationVar(&d.Wait, "wait", 30*time.Second, "how long to wait for +switch-master after the kill")
	f.BoolVar(&d.Events, "events", false, "print every sentinel event while the demo runs")
	f.BoolVar(&d.KeepDir, "keep", false, "keep the temp dir with configs and logs")
	f.StringVar(&cli, "client", "gosentinel", "client the writes go through: gosentinel (package client) or go-redis (redis.NewFailoverClient)")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON (progress still goes to stderr)")
	f.BoolVar(&noColor, "no-color", false, "never colour the output")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		nc, err := ops.ClientByName(cli)
		if err != nil {
			return err
		}
		d.NewClient = nc
		ctx, stop := signal.NotifyContext(contextOf(cmd), os.Interrupt, syscall.SIGTERM)
		defer stop()
		out := cmd.OutOrStdout()
		d.Out = out
		if asJSON {
			d.Out = cmd.ErrOrStderr()
		}
		d.Color = !noColor && isTerminal(d.Out)
		rep, err := ops.RunDemo(ctx, d)
		if rep != nil && rep.Drill != nil {
			if asJSON {
				if jerr := writeJSON(out, rep); jerr != nil {
					return fmt.Errorf("demo: %w", jerr)
				}
			} else {
				fmt.Fprintf(out, "\nsentinels: %s\n", rep.SentinelBin)
				ops.WriteDrillReport(out, rep.Drill)
			}
		}
		switch {
		case errors.Is(err, ops.ErrFailoverIncomplete):
			fmt.Fprintf(cmd.ErrOrStderr(), "\nsentinelctl demo: the failover did NOT complete with %s; no failover figures to show.\n", rep.SentinelBin)
			return exitError{code: 2}
		case err != nil:
			fmt.Fprintf(cmd.ErrOrStderr(), "\nsentinelctl demo: %v\n", err)
			return exitError{code: 2}
		case !rep.Drill.Passed():
			return exitError{code: 1}
		}
		return nil
	}
	return cmd
}
