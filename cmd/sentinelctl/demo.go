package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func init() { register(newDemoCmd) }

func newDemoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Start a local master, two replicas and three gosentinels and run a failover drill",
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(cmd.ErrOrStderr(), "sentinelctl demo: not built yet — it arrives with the operators issue (#7); "+
				"until then run `make test` to see gosentinel's pieces exercised against real redis-server.")
			return exitError{code: 1}
		},
	}
}
