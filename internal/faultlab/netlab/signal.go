package netlab

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// CloseOnSignal closes the lab when the process gets SIGINT or SIGTERM
// (Ctrl-C, a CI timeout), then re-raises the signal's default effect by
// exiting with 128+signal. It returns a stop func; call it (or cancel ctx)
// once the lab is closed normally. Processes also die with the test process
// through Pdeathsig, and a crashed run's leftovers are removed by the next
// New with the same index (CleanupStale).
func (l *Lab) CloseOnSignal(ctx context.Context) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case sig := <-ch:
			l.log.Warn("netlab: signal received, closing the lab", "signal", sig.String())
			_ = l.Close()
			code := 128
			if s, ok := sig.(syscall.Signal); ok {
				code += int(s)
			}
			os.Exit(code)
		case <-ctx.Done():
		}
	}()
	return func() {
		signal.Stop(ch)
		cancel()
		<-done
	}
}
