package main

import (
	"os"
	"time"
)

// shutdownGrace bounds the orderly stop after SIGTERM/SIGINT: if the
// runtime has not returned by then (the core busy in one long step, a
// persist stuck in fsync, a link close blocked in the kernel), the process
// exits anyway. Exiting is safe at any point: the config file is replaced
// atomically (rename), and nothing that reveals a vote or an epoch leaves
// before it is on disk, so an abrupt exit loses nothing that was promised.
const shutdownGrace = 500 * time.Millisecond

// stuckRunForTest is empty in every build but the one of
// TestSIGTERMStuckRun (-ldflags "-X main.stuckRunForTest=1"), where the
// run never returns after it stopped, as when the core is stuck in one
// step: the process must still exit within a second of SIGTERM.
var stuckRunForTest string

// forceExitAfter waits for the first signal on sigs, then calls cancel (the
// orderly stop) and, unless runDone closes within grace, calls exit. It
// returns when runDone closes or after exit.
func forceExitAfter(sigs <-chan os.Signal, runDone <-chan struct{}, cancel func(), grace time.Duration, exit func()) {
	select {
	case <-runDone:
		return
	case <-sigs:
	}
	cancel()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-runDone:
	case <-t.C:
		exit()
	}
}
