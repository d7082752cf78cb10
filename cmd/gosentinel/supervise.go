package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/runtime"
)

// Supervision modes, as `supervised` names them and INFO's
// process_supervised shows them.
const (
	supervisedNo      = "no"
	supervisedSystemd = "systemd"
	supervisedUpstart = "upstart"
)

// supervisor talks to the service manager named by `supervised`
// (redis-server's redisIsSupervised): under systemd it sends the
// sd_notify(3) messages redis-sentinel sends — STATUS while loading,
// STATUS and READY=1 once the port is open, STOPPING=1 when the shutdown
// starts — so the Debian/Ubuntu unit `redis-sentinel.service`
// (`Type=notify`, `--supervised systemd`) starts gosentinel as it starts
// redis-sentinel; under upstart it stops itself once (`expect stop`).
// A supervised sentinel does not daemonize even with `daemonize yes`.
type supervisor struct {
	mode     string // supervisedSystemd, supervisedUpstart or supervisedNo
	socket   string // $NOTIFY_SOCKET (systemd)
	stopOnce sync.Once
}

// supervisedMode resolves `supervised` (default "no") as
// redisIsSupervised does: "auto" means upstart when $UPSTART_JOB is set,
// systemd when $NOTIFY_SOCKET is.
func supervisedMode(cfg *config.Config) string {
	mode, _ := cfg.Server.OtherValue("supervised")
	if mode == "auto" {
		switch {
		case os.Getenv("UPSTART_JOB") != "":
			return supervisedUpstart
		case os.Getenv("NOTIFY_SOCKET") != "":
			return supervisedSystemd
		}
		return supervisedNo
	}
	if mode == supervisedSystemd || mode == supervisedUpstart {
		return mode
	}
	return supervisedNo
}

// supervisable reports whether the service manager of mode is there to
// talk to ($NOTIFY_SOCKET, $UPSTART_JOB): only then does a supervised
// sentinel skip `daemonize yes`, as redis-server's main does.
func supervisable(mode string) bool {
	switch mode {
	case supervisedSystemd:
		return os.Getenv("NOTIFY_SOCKET") != ""
	case supervisedUpstart:
		return os.Getenv("UPSTART_JOB") != ""
	}
	return false
}

// newSupervisor starts supervision for mode, logging like redis-server.
// The returned supervisor's mode is supervisedNo when supervision could
// not start (no $NOTIFY_SOCKET, no $UPSTART_JOB): the process then runs
// as if unsupervised, daemonizing if configured to.
func newSupervisor(mode string, logger *slog.Logger) *supervisor {
	s := &supervisor{mode: supervisedNo}
	ctx := context.Background()
	switch mode {
	case supervisedSystemd:
		s.socket = os.Getenv("NOTIFY_SOCKET")
		if s.socket == "" {
			logger.Log(ctx, runtime.LevelWarning, "systemd supervision error: NOTIFY_SOCKET not found!")
			return s
		}
		s.mode = supervisedSystemd
		if err := s.notify("STATUS=Redis is loading...\n"); err != nil {
			logger.Log(ctx, runtime.LevelWarning, "systemd supervision error: sd_notify: "+err.Error())
			s.mode = supervisedNo
			return s
		}
		logger.Log(ctx, runtime.LevelNotice, "Supervised by systemd. Please make sure you set appropriate values for TimeoutStartSec and TimeoutStopSec in your service unit.")
	case supervisedUpstart:
		if os.Getenv("UPSTART_JOB") == "" {
			logger.Log(ctx, runtime.LevelWarning, "upstart supervision requested, but UPSTART_JOB not found!")
			return s
		}
		logger.Log(ctx, runtime.LevelNotice, "supervised by upstart, will stop to signal readiness.")
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		_ = os.Unsetenv("UPSTART_JOB")
		s.mode = supervisedUpstart
	}
	return s
}

// ready tells systemd the sentinel accepts connections.
func (s *supervisor) ready(logger *slog.Logger) {
	if s.mode != supervisedSystemd {
		return
	}
	for _, msg := range []string{"STATUS=Ready to accept connections\n", "READY=1\n"} {
		if err := s.notify(msg); err != nil {
			logger.Log(context.Background(), runtime.LevelWarning, "systemd supervision error: sd_notify: "+err.Error())
			return
		}
	}
}

// stopping tells systemd the shutdown has started (once).
func (s *supervisor) stopping() {
	if s.mode != supervisedSystemd {
		return
	}
	s.stopOnce.Do(func() { _ = s.notify("STOPPING=1\n") })
}

// notify sends one sd_notify(3) datagram to $NOTIFY_SOCKET: a path, or an
// abstract socket when it starts with '@' (which package net maps to the
// abstract namespace itself).
func (s *supervisor) notify(msg string) error {
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: s.socket, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("connect %s: %w", s.socket, err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(msg)); err != nil {
		return fmt.Errorf("send to %s: %w", s.socket, err)
	}
	return nil
}
