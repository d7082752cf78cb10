// Command gosentinel is a drop-in replacement for redis-sentinel 7.0.15:
//
//	gosentinel /path/to/sentinel.conf [--<directive> <value>...]
//
// Command-line directives override the file like redis-sentinel's do;
// --sentinel is accepted and ignored; --version and --help print and exit.
// The config file must exist and be writable (Sentinel saves its state in
// it); rewrites go to that file even after `dir` changes the working
// directory. Nothing is written to stderr except fatal configuration errors,
// in real Redis' format.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/runtime"
)

// Version is the Redis version gosentinel is compatible with.
const Version = "7.0.15"

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run is main without os.Exit, for tests.
func run(argv []string, stdout, stderr io.Writer) int {
	inv, err := parseArgs(argv[1:])
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	switch {
	case inv.version:
		fmt.Fprintf(stdout, "Redis server v=%s sha=00000000:0 malloc=libc bits=64 build=gosentinel\n", Version)
		return 0
	case inv.help:
		fmt.Fprint(stdout, usage)
		return 0
	}
	if inv.confPath == "" {
		logLine(stdout, runtime.LevelWarning, "Sentinel needs config file on disk to save state. Exiting...")
		return 1
	}
	abs, err := filepath.Abs(inv.confPath)
	if err != nil {
		logLine(stdout, runtime.LevelWarning, fmt.Sprintf("Fatal error, can't resolve config file '%s': %v", inv.confPath, err))
		return 1
	}
	cfg, err := config.LoadArgs(abs, inv.options)
	if err != nil {
		var ce *config.ConfigError
		if errors.As(err, &ce) {
			// Redis' block on stderr, byte for byte; the file the line is
			// in goes to the log (stdout): Redis names no file, which
			// leaves an error inside an included file, or in the
			// command-line options that follow the file's last line,
			// without a place.
			fmt.Fprintf(stderr, "\n*** FATAL CONFIG FILE ERROR (Redis %s) ***\nReading the configuration file, at line %d\n>>> '%s'\n%s\n", Version, ce.Line, ce.Text, ce.Msg)
			if ce.File != "" {
				logLine(stdout, runtime.LevelWarning, fmt.Sprintf("Fatal config file error at %s:%d: %s", ce.File, ce.Line, ce.Msg))
			}
			return 1
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		logLine(stdout, runtime.LevelWarning, fmt.Sprintf("Fatal error, can't open config file '%s': %v", abs, err))
		return 1
	}
	supervised := supervisedMode(cfg)
	if cfg.Server.Daemonize && !supervisable(supervised) && os.Getenv(daemonEnv) == "" {
		if err := daemonize(argv); err != nil {
			logLine(stdout, runtime.LevelWarning, "Can't daemonize: "+err.Error())
			return 1
		}
		return 0
	}
	return serve(abs, cfg, stdout, inv.extra, supervised)
}

// serve runs the sentinel until SIGTERM/SIGINT, SHUTDOWN or an exit
// request.
func serve(abs string, cfg *config.Config, stdout io.Writer, extra extraFlags, supervised string) int {
	// A sentinel that systemd or upstart supervises stays in the
	// foreground whatever `daemonize` says (supervise.go).
	background := cfg.Server.Daemonize && !supervisable(supervised)
	// Like redis-server: SIGHUP and SIGPIPE are ignored (Go would otherwise
	// die on SIGHUP, or on a write to a closed stdout pipe).
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	if err := os.Chdir(cfg.Server.AbsDir); err != nil {
		logLine(stdout, runtime.LevelWarning, fmt.Sprintf("Can't chdir to '%s': %v", cfg.Server.AbsDir, err))
		return 1
	}
	logger, stepLog, closeLog, err := openLog(cfg, stdout, extra.logFormat, background)
	if err != nil {
		logLine(stdout, runtime.LevelWarning, fmt.Sprintf("Can't open the log file: %v", err))
		return 1
	}
	defer closeLog()
	ctx := context.Background()
	sup := newSupervisor(supervised, logger)
	if err := syscall.Access(abs, 2 /* W_OK */); err != nil {
		logger.Log(ctx, runtime.LevelWarning, fmt.Sprintf("Sentinel config file %s is not writable: %v. Exiting...", abs, err))
		return 1
	}
	pidfile := cfg.Server.PidFile
	if pidfile == "" && background {
		pidfile = "/var/run/redis.pid"
	}
	removePid := func() {}
	pidWritten := false
	if pidfile != "" {
		if err := os.WriteFile(pidfile, fmt.Appendf(nil, "%d\n", os.Getpid()), 0o644); err != nil {
			logger.Log(ctx, runtime.LevelWarning, "Failed to write PID file: "+err.Error())
		} else {
			defer os.Remove(pidfile)
			removePid = func() { _ = os.Remove(pidfile) }
			pidWritten = true
		}
	}
	exe, _ := os.Executable()
	mx := newMetricsSetup(extra.metricsAddr)
	opts := runtime.Options{ConfigPath: abs, Config: cfg, Logger: logger, Executable: exe, Observer: mx.observer(), Supervised: sup.mode}
	if stepLog != nil {
		opts.StepLog = stepLog
	}
	rt, err := runtime.New(opts)
	var se *runtime.StartupError
	switch {
	case errors.As(err, &se):
		logger.Log(ctx, runtime.LevelWarning, se.Msg)
		return 1
	case err != nil:
		logger.Log(ctx, runtime.LevelWarning, err.Error())
		return 1
	}
	// Signals are caught before the port opens: a SIGTERM sent as soon
	// as the sentinel answers must stop it in order (it used to kill the
	// process by the default action while it started; TestSIGTERMStuckRun
	// sends it right after the first PONG). One arriving before the run
	// starts waits in sigs.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	if err := rt.Start(); err != nil {
		if errors.Is(err, runtime.ErrNoListener) {
			logger.Log(ctx, runtime.LevelWarning, err.Error())
		} else {
			logger.Log(ctx, runtime.LevelWarning, fmt.Sprintf("Failed listening on port %d (tcp), aborting: %v", cfg.Server.Port, err))
		}
		return 1
	}
	stopMetrics, err := mx.start(rt, logger)
	if err != nil {
		logger.Log(ctx, runtime.LevelWarning, fmt.Sprintf("Failed serving metrics on %s, aborting: %v", extra.metricsAddr, err))
		return 1
	}
	defer stopMetrics()
	shownPort := cfg.Server.Port
	if shownPort == 0 {
		shownPort = cfg.Server.TLSPort // like redisAsciiArt: the TLS port when there is no plain one
	}
	logger.Log(ctx, runtime.LevelNotice, fmt.Sprintf("Running mode=sentinel, port=%d.", shownPort))
	sup.ready(logger)
	defer sup.stopping()
	sigCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { <-sigCtx.Done(); sup.stopping() }()
	runDone := make(chan struct{})
	go forceExitAfter(sigs, runDone, cancel, shutdownGrace, func() { // shutdown.go
		logger.Log(ctx, runtime.LevelWarning, "Received SIGTERM scheduling shutdown...")
		logger.Log(ctx, runtime.LevelWarning, fmt.Sprintf("Orderly shutdown did not finish within %v, exiting now", shutdownGrace))
		removePid()
		os.Exit(0)
	})
	err = rt.Run(sigCtx)
	if stuckRunForTest != "" {
		select {} // shutdown.go: only the forced exit ends the process
	}
	close(runDone)
	var ee *runtime.ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if err != nil {
		logger.Log(ctx, runtime.LevelWarning, err.Error())
		return 1
	}
	if sigCtx.Err() != nil {
		logger.Log(ctx, runtime.LevelWarning, "Received SIGTERM scheduling shutdown...")
	}
	// The lines of redis-server's prepareForShutdown, which log watchers
	// match on (after SIGTERM and after SHUTDOWN alike).
	logger.Log(ctx, runtime.LevelWarning, "User requested shutdown...")
	if pidWritten {
		logger.Log(ctx, runtime.LevelNotice, "Removing the pid file.")
		removePid()
	}
	logger.Log(ctx, runtime.LevelWarning, "Sentinel is now ready to exit, bye bye...")
	return 0
}

// openLog opens logfile (relative to dir; reopened for every line like
// Redis, so log rotation needs no signal), or uses stdout when it is empty.
// The *logFile is returned too (nil without a logfile), for the runtime's
// StepLog.
func openLog(cfg *config.Config, stdout io.Writer, format string, background bool) (*slog.Logger, *logFile, func(), error) {
	w, closeFn := stdout, func() {}
	var lf *logFile
	if cfg.Server.LogFile != "" {
		f, err := openLogFile(cfg.Server.LogFile)
		if err != nil {
			return nil, nil, nil, err
		}
		w, lf = f, f
	} else if background {
		w = io.Discard
	}
	logger, err := newLogger(w, cfg, format)
	if err != nil {
		closeFn()
		return nil, nil, nil, err
	}
	return logger, lf, closeFn, nil
}

// logLine writes one Redis-style line before the logger exists.
func logLine(w io.Writer, level slog.Level, msg string) {
	slog.New(runtime.NewRedisHandler(w, level)).Log(context.Background(), level, msg)
}

const usage = `Usage: gosentinel /path/to/sentinel.conf [options]
       gosentinel -v or --version
       gosentinel -h or --help

gosentinel is a drop-in replacement for redis-sentinel 7.0.15.
Options are sentinel.conf directives that override the file:
       gosentinel sentinel.conf --port 26380
       gosentinel sentinel.conf --sentinel monitor mymaster 127.0.0.1 6379 2
       gosentinel sentinel.conf --loglevel verbose
gosentinel-only options (never written to the config file):
       --metrics-addr host:port   serve Prometheus metrics at /metrics
       --log-format text|json     log format (default: Redis' text lines)
`
