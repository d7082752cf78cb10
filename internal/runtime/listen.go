package runtime

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/link"
	"github.com/gosentinel/gosentinel/internal/server"
)

// ErrNoListener is returned by Start when both port and tls-port are 0;
// its text is what Redis logs before exiting with status 1.
var ErrNoListener = errors.New("Configured to not listen anywhere, exiting.")

// StartupError is a fatal start-up condition whose Msg is the line Redis
// logs for it (the caller logs Msg at warning level and exits 1).
type StartupError struct {
	Msg string
	Err error
}

// Error returns the message with its cause.
func (e *StartupError) Error() string { return "runtime: " + e.Msg }

// Unwrap returns the cause.
func (e *StartupError) Unwrap() error { return e.Err }

// startupError turns server.New's errors into the messages Redis logs.
func startupError(err error) error {
	var afe *server.ACLFileError
	switch {
	case errors.As(err, &afe):
		return &StartupError{Msg: "Aborting Redis startup because of ACL errors: " + afe.Text, Err: err}
	case errors.Is(err, server.ErrUsersAndACLFile):
		return &StartupError{Msg: server.ErrUsersAndACLFile.Error(), Err: err}
	}
	return fmt.Errorf("runtime: %w", err)
}

// serverConfig maps the loaded configuration to the client-facing
// server's: bind/port, requirepass, users (already split, so rules with
// spaces need no re-quoting) or aclfile, rename-command, limits.
func serverConfig(opts Options, log *slog.Logger) server.Config {
	s := opts.Config.Server
	sc := server.Config{
		Bind:        s.Bind,
		Port:        s.Port,
		Requirepass: s.RequirePass,
		ACLFile:     s.ACLFile,
		MaxClients:  s.MaxClients,
		Timeout:     time.Duration(s.Timeout) * time.Second,
		ConfigFile:  opts.ConfigPath,
		Executable:  opts.Executable,
		Supervised:  opts.Supervised,
		OutputLimits: &server.OutputLimits{
			Normal: outputLimit(s.OutputLimit("normal")),
			Pubsub: outputLimit(s.OutputLimit("pubsub")),
		},
		ACLLogMaxLen: aclLogMaxLen(s.ACLLogMaxLen),
		Logf: func(format string, args ...any) {
			log.Log(context.Background(), LevelVerbose, fmt.Sprintf(format, args...))
		},
	}
	for _, u := range s.Users {
		sc.UserRules = append(sc.UserRules, append([]string{u.Name}, u.Rules...))
	}
	if len(s.RenameCommands) > 0 {
		sc.RenameCommands = make(map[string]string, len(s.RenameCommands))
		for _, rn := range s.RenameCommands {
			sc.RenameCommands[strings.ToLower(rn.Old)] = rn.New
		}
	}
	return sc
}

// outputLimit converts one client-output-buffer-limit class.
func outputLimit(l config.OutputLimit) server.OutputLimit {
	return server.OutputLimit{
		Hard:     int64(min(l.Hard, 1<<62)),
		Soft:     int64(min(l.Soft, 1<<62)),
		SoftTime: time.Duration(min(l.SoftSeconds, 1<<32)) * time.Second,
	}
}

// aclLogMaxLen maps acllog-max-len to server.Config's field, where 0
// means the default: "acllog-max-len 0" keeps no entries.
func aclLogMaxLen(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// listen binds the plain port (unless it is 0) and the TLS port (if set):
// like Redis, "port 0" with a tls-port serves TLS only, and neither is a
// fatal error (ErrNoListener). The TLS port is bound first, so that once
// the plain port answers, every port does (tools and tests wait for the
// plain port).
func (r *Runtime) listen() error {
	s := r.opts.Config.Server
	if s.Port == 0 && s.TLSPort == 0 {
		return ErrNoListener
	}
	if s.TLSPort != 0 {
		tc, err := serverTLSConfig(s)
		if err != nil {
			return err
		}
		if err := r.srv.StartTLS(s.TLSPort, tc); err != nil {
			return fmt.Errorf("runtime: tls-port: %w", err)
		}
	}
	if s.Port != 0 {
		if err := r.srv.Start(); err != nil {
			return fmt.Errorf("runtime: %w", err)
		}
	}
	return nil
}

// serverTLSConfig builds the TLS configuration of the client-facing
// tls-port: tls-cert-file/tls-key-file are the server's certificate;
// tls-auth-clients yes (default) requires a client certificate signed by
// tls-ca-cert-file, optional verifies one when given, no asks for none.
// TLS 1.2 and 1.3, like Redis' default tls-protocols.
func serverTLSConfig(s config.Server) (*tls.Config, error) {
	if s.TLSCertFile == "" || s.TLSKeyFile == "" {
		return nil, errors.New("runtime: tls-port needs tls-cert-file and tls-key-file")
	}
	cert, err := tls.LoadX509KeyPair(s.TLSCertFile, s.TLSKeyFile)
	if err != nil {
		return nil, fmt.Errorf("runtime: load tls-cert-file/tls-key-file: %w", err)
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	o := s.TLS()
	applyTLSOptions(tc, o) // tlsopts.go
	switch strings.ToLower(s.TLSAuthClients) {
	case "no":
		tc.ClientAuth = tls.NoClientCert
		return tc, nil
	case "optional":
		tc.ClientAuth = tls.VerifyClientCertIfGiven
	default: // "yes", Redis' default
		tc.ClientAuth = tls.RequireAndVerifyClientCert
	}
	if s.TLSCACertFile == "" && o.CACertDir == "" {
		return nil, errors.New("runtime: Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!")
	}
	pool := x509.NewCertPool()
	if s.TLSCACertFile != "" {
		pem, err := os.ReadFile(s.TLSCACertFile)
		if err != nil {
			return nil, fmt.Errorf("runtime: read tls-ca-cert-file: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("runtime: tls-ca-cert-file %s: no certificate found", s.TLSCACertFile)
		}
	}
	if o.CACertDir != "" {
		if err := link.AppendCADir(pool, o.CACertDir); err != nil {
			return nil, fmt.Errorf("runtime: %w", err)
		}
	}
	tc.ClientCAs = pool
	return tc, nil
}
