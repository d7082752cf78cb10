package main

import (
	"errors"
	"fmt"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/spf13/cobra"
)

func init() { register(newConfigCmd) }

// newConfigCmd builds `sentinelctl config` and its `check` subcommand.
func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Work with sentinel.conf files",
	}
	cmd.AddCommand(newConfigCheckCmd())
	return cmd
}

func newConfigCheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE [-- --directive value...]",
		Short: "Validate a sentinel.conf exactly as redis-sentinel 7.0 loads it",
		Long: "check parses FILE (plus optional command-line overrides after --, as given to redis-sentinel) " +
			"with the same rules and messages as redis-sentinel 7.0.15. It prints OK and exits 0 for a valid " +
			"file; otherwise it prints FILE:LINE: message and the offending line to stderr and exits 1.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := config.LoadArgs(args[0], args[1:])
			if err == nil {
				fmt.Fprintln(cmd.OutOrStdout(), "OK")
				return nil
			}
			var ce *config.ConfigError
			if errors.As(err, &ce) {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s\n>>> '%s'\n", ce.Error(), ce.Text)
			} else {
				fmt.Fprintf(cmd.ErrOrStderr(), "sentinelctl config check: %v\n", err)
			}
			return exitError{code: 1}
		},
	}
}
