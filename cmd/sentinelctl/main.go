// Command sentinelctl is the operator CLI for gosentinel and real
// redis-sentinel deployments: config checks, the simulator, and (later)
// status, watch, drill, check and demo.
//
// Each subcommand lives in its own file and registers itself with
// register() from an init function, so the root stays thin.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// subcommands is filled by the init functions of the subcommand files.
var subcommands []func() *cobra.Command

// register adds a subcommand constructor to the root command.
func register(f func() *cobra.Command) { subcommands = append(subcommands, f) }

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "sentinelctl",
		Short:         "Operate gosentinel and redis-sentinel deployments",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, f := range subcommands {
		root.AddCommand(f())
	}
	return root
}

// exitError carries an exit status out of a subcommand without printing
// anything more (the subcommand already printed what the user needs).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	if err := newRoot().Execute(); err != nil {
		if ee, ok := err.(exitError); ok {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "sentinelctl:", err)
		os.Exit(2)
	}
}
