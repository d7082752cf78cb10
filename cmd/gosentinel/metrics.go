package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/metrics"
	"github.com/gosentinel/gosentinel/internal/runtime"
)

// extraFlags are gosentinel-only command-line options. They are taken out
// of argv before the rest goes to config.LoadArgs, so they are never
// sentinel.conf directives and never written by a config rewrite.
type extraFlags struct {
	metricsAddr string // --metrics-addr host:port ("" = no metrics)
	logFormat   string // --log-format text|json
}

// errFlag wraps the errors of gosentinel-only options.
var errFlag = errors.New("bad gosentinel option")

// takeExtraFlags removes "--metrics-addr <host:port>" and "--log-format
// <text|json>" (or "--name=value") from the "--directive value..." options
// and returns the rest unchanged. Each takes exactly one value.
func takeExtraFlags(options []string) (extraFlags, []string, error) {
	var ex extraFlags
	rest := make([]string, 0, len(options))
	for i := 0; i < len(options); i++ {
		name, val, hasEq := strings.Cut(options[i], "=")
		var dst *string
		switch strings.ToLower(name) {
		case "--metrics-addr":
			dst = &ex.metricsAddr
		case "--log-format":
			dst = &ex.logFormat
		default:
			rest = append(rest, options[i])
			continue
		}
		if !hasEq {
			if i+1 >= len(options) || strings.HasPrefix(options[i+1], "--") {
				return ex, nil, fmt.Errorf("%w: %s needs a value", errFlag, name)
			}
			i++
			val = options[i]
		}
		if i+1 < len(options) && !strings.HasPrefix(options[i+1], "--") {
			return ex, nil, fmt.Errorf("%w: %s takes one value, got also %q", errFlag, name, options[i+1])
		}
		*dst = val
	}
	if _, err := metrics.NewLogHandler(io.Discard, runtime.LevelNotice, ex.logFormat); err != nil {
		return ex, nil, fmt.Errorf("%w: --log-format: %w", errFlag, err)
	}
	return ex, rest, nil
}

// newLogger builds the logger of a log format (text: Redis' lines).
func newLogger(w io.Writer, cfg *config.Config, format string) (*slog.Logger, error) {
	level, err := runtime.ParseLogLevel(cfg.Server.LogLevel)
	if err != nil {
		return nil, err
	}
	// Built for every level behind a gate, so that SENTINEL CONFIG SET
	// loglevel can lower or raise it at run time (Redis 7.2).
	h, err := metrics.NewLogHandler(w, runtime.LevelDebug, format)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	return slog.New(runtime.NewLevelGate(h, level)), nil
}

// metricsSetup wires --metrics-addr: the Metrics observe the runtime from
// its creation, the HTTP listener starts once the runtime is built.
type metricsSetup struct {
	addr string
	m    *metrics.Metrics
}

func newMetricsSetup(addr string) *metricsSetup {
	s := &metricsSetup{addr: addr}
	if addr != "" {
		s.m = metrics.New(0)
	}
	return s
}

// observer returns the runtime observer (a nil interface without
// --metrics-addr, so that the runtime skips the hooks).
func (s *metricsSetup) observer() runtime.Observer {
	if s.m == nil {
		return nil
	}
	return s.m
}

// start serves /metrics for rt; the returned function stops it.
func (s *metricsSetup) start(rt *runtime.Runtime, log *slog.Logger) (func(), error) {
	if s.m == nil {
		return func() {}, nil
	}
	s.m.SetSource(rt)
	srv, err := metrics.Listen(s.addr, s.m)
	if err != nil {
		return nil, err
	}
	log.Log(context.Background(), runtime.LevelNotice, fmt.Sprintf("Metrics listening on http://%s/metrics", srv.Addr()))
	return func() { _ = srv.Close() }, nil
}
