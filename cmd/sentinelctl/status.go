package main

import (
	"fmt"

	"github.com/gosentinel/gosentinel/internal/ops"
	"github.com/spf13/cobra"
)

func init() { register(newStatusCmd) }

func newStatusCmd() *cobra.Command {
	ops.SilenceDriverLogs()
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status [master-name]",
		Short: "Show masters, replicas and sentinels as every given sentinel sees them",
		Long: "status asks every --sentinel for the masters it monitors (or only master-name), " +
			"their replicas and peer sentinels, and prints one table per master. " +
			"Differences between sentinels (master address, config epoch) are flagged. " +
			"Exit status: 0, or 1 when a sentinel is unreachable or sentinels disagree.",
		Args: cobra.MaximumNArgs(1),
	}
	o := ops.BindConnFlags(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		name := ""
		if len(args) == 1 {
			name = args[0]
		}
		st, _, err := ops.GetStatus(cmd.Context(), o, name)
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		out := cmd.OutOrStdout()
		if asJSON {
			if err := writeJSON(out, st); err != nil {
				return fmt.Errorf("status: %w", err)
			}
		} else if err := ops.WriteStatus(out, st); err != nil {
			return err
		}
		if !st.Healthy() {
			return exitError{code: 1}
		}
		return nil
	}
	return cmd
}
