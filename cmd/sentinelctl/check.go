package main

import (
	"fmt"

	"github.com/gosentinel/gosentinel/internal/ops"
	"github.com/spf13/cobra"
)

func init() { register(newCheckCmd) }

func newCheckCmd() *cobra.Command {
	ops.SilenceDriverLogs()
	var (
		asJSON bool
		ignore []string
	)
	cmd := &cobra.Command{
		Use:   "check [master-name]",
		Short: "Lint a Sentinel deployment against common production mistakes",
		Long: "check asks every --sentinel and the data nodes, then reports findings (error, warning, info) with evidence " +
			"and a fix: sentinel count and placement, quorum vs majority, CKQUORUM, eligible replicas, timers, " +
			"unreachable announced addresses, min-replicas-to-write, writable replicas, disagreeing sentinels. " +
			"Exit status: 0 clean or info only, 1 warnings, 2 errors.",
		Args: cobra.MaximumNArgs(1),
	}
	o := ops.BindConnFlags(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringArrayVar(&ignore, "ignore", nil, "skip findings of this rule (repeatable), e.g. sentinels-same-host on a test box")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		name := ""
		if len(args) == 1 {
			name = args[0]
		}
		in, fs, err := ops.Check(cmd.Context(), o, name)
		if err != nil {
			return err
		}
		fs = ops.FilterFindings(fs, ignore)
		code := ops.ExitCode(fs)
		out := cmd.OutOrStdout()
		if asJSON {
			if err := writeJSON(out, struct {
				Findings []ops.Finding   `json:"findings"`
				Exit     int             `json:"exit"`
				Input    *ops.CheckInput `json:"input"`
			}{fs, code, in}); err != nil {
				return fmt.Errorf("check: %w", err)
			}
		} else {
			ops.WriteFindings(out, fs)
		}
		if code != 0 {
			return exitError{code: code}
		}
		return nil
	}
	return cmd
}
