// Package runtime runs one Sentinel: a single goroutine owns the
// [core.Sentinel] state machine and is the only caller of its Step.
//
// The loop turns a jittered timer (50–100 ms, or earlier at the core's
// NextDeadline) into Tick events, events of internal/link into link events,
// and client commands forwarded by internal/server (the runtime implements
// server.Backend) into Request events. It executes the returned effects
// strictly in order:
//
//   - Persist: handed to a persister goroutine that rewrites the ORIGINAL
//     sentinel.conf with internal/config (atomic write, fsync); its
//     PersistDone comes back as an event. The core holds back everything
//     that reveals a vote or an epoch until then, so the loop never waits
//     for the disk;
//   - Connect / Send / Close: internal/link, which never blocks;
//   - Emit: logged ("<type> <msg>") and published on the server's pub/sub
//     with channel = type, unless the level is debug;
//   - Log: logged;
//   - Respond: converted to resp.Value and handed to the waiting client;
//   - RunScript / KillScript: fork/exec without a shell (os/exec: inherited
//     environment, cwd = the process's working directory, i.e. `dir`, and no
//     file descriptor but stdio, because Go opens every fd with CLOEXEC);
//   - Exit: [Runtime.Run] returns an [*ExitError] at once.
//
// Cancelling the context given to Run closes the listener and every link,
// kills running scripts and waits for every goroutine the runtime started.
package runtime
