package runtime

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"time"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/link"
	"github.com/gosentinel/gosentinel/internal/resp"
	"github.com/gosentinel/gosentinel/internal/server"
)

// ExitError is returned by [Runtime.Run] when the core asked the process
// to exit (SENTINEL SIMULATE-FAILURE); the caller should os.Exit(Code).
type ExitError struct{ Code int }

// Error describes the exit request.
func (e *ExitError) Error() string {
	return fmt.Sprintf("runtime: exit requested with code %d", e.Code)
}

// ErrStopped is returned to clients whose command arrives while the
// runtime is stopping.
var ErrStopped = errors.New("runtime: stopped")

// Options configure a [Runtime].
type Options struct {
	// ConfigPath is the absolute path of sentinel.conf; every rewrite goes
	// there.
	ConfigPath string
	// Config is the loaded configuration (file plus command-line overrides).
	Config *config.Config
	// Logger receives the log; nil discards it.
	Logger *slog.Logger
	// Timing overrides the core's timers (zero: Redis defaults).
	Timing core.Timing
	// Rand seeds the core; nil draws a seed from crypto/rand.
	Rand *rand.Rand
	// Link tunes the outbound connections; TLS is filled from the config
	// when tls-replication is on and Link.TLS is nil.
	Link link.Config
	// Executable is shown in INFO server.
	Executable string
	// Supervised is INFO server's process_supervised: "systemd",
	// "upstart" or "no" (empty means "no").
	Supervised string
	// NoQueryCache turns off the read-only query cache (querycache.go):
	// every GET-MASTER-ADDR-BY-NAME then goes through the loop (tests,
	// benchmarks).
	NoQueryCache bool
	// Observer, when set, receives events, PING round trips and lost
	// connections on the loop goroutine (metrics.go).
	Observer Observer
	// StepLog, when set, is held for each step of the loop: Hold before
	// the core takes an event, Release after its effects, Flush before
	// the step does anything a client can see (cmd/gosentinel's log file
	// writes the lines of one step at once instead of opening and writing
	// per line; docs/security.md, "Latency under these loads"). With a
	// StepLog the step's events are published after Flush, so that no
	// subscriber sees an event before its log line is written.
	StepLog StepLog
}

// StepLog is told where a step of the loop begins and ends, and when the
// lines logged so far must be written (see [Options.StepLog]).
type StepLog interface {
	Hold()
	Flush()
	Release()
}

// Runtime is one running sentinel.
type Runtime struct {
	opts  Options
	log   *slog.Logger
	core  *core.Sentinel
	links *link.Manager
	dns   *dnsCache // resolve-hostnames lookups (dnscache.go)
	srv   *server.Server
	start time.Time

	requests chan request      // from server goroutines
	internal chan core.Event   // from the persister and script waiters
	persists chan core.Persist // to the persister (capacity 1)
	stopped  chan struct{}     // closed when the loop returns
	stopOnce sync.Once
	shutdown chan struct{} // closed by the SHUTDOWN command
	shutOnce sync.Once
	wg       sync.WaitGroup

	// Owned by the loop goroutine.
	queue []core.Event
	// pubs are the step's events not yet published: with a StepLog they
	// wait for the log lines to be written (flushEvents).
	pubs []core.Emit
	// publish is srv.Publish (tests observe it).
	publish func(channel, message string) int
	conns   map[core.ConnID]*connInfo
	replies map[uint64]chan resp.Value
	nextReq uint64
	scripts map[uint64]*os.Process
	scrMu   sync.Mutex // guards scripts against the waiters
	// fillID/fillName: the cacheable query being stepped (querycache.go).
	fillID   uint64
	fillName string

	qcache queryCache // read by server goroutines, written by the loop
}

// connInfo is a connection the core opened, from its Connect until its
// Close or LinkClosed: the one table of connections in the runtime (the
// link manager has its own, keyed by the same ID; internal/link/doc.go).
type connInfo struct {
	link core.LinkID
	typ  core.ConnType
	role core.Role
	up   bool // LinkConnected seen
	// pings are the PINGs sent and not answered yet, for the Observer's
	// round-trip times (metrics.go); nil without an Observer.
	pings map[core.Tag]time.Time
}

// request is a client command or a function to run on the loop.
type request struct {
	args  []string
	reply chan resp.Value
	fn    func()
}

// New builds a Runtime: the core from the configuration, the link manager
// and the client-facing server (not listening yet).
func New(opts Options) (*Runtime, error) {
	if opts.Config == nil {
		return nil, errors.New("runtime: nil config")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(NewRedisHandler(io.Discard, LevelWarning))
	}
	if opts.Rand == nil {
		var seed [16]byte
		if _, err := crand.Read(seed[:]); err != nil {
			return nil, fmt.Errorf("runtime: seed: %w", err)
		}
		opts.Rand = rand.New(rand.NewPCG(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:])))
	}
	timing := opts.Timing
	if timing == (core.Timing{}) {
		timing = core.DefaultTiming()
	}
	dns := newDNSCache() // dnscache.go
	start := time.Now()  // the core clock's origin (loop.go now, convert.go coreClock)
	sc, err := core.New(coreConfig(opts.Config, timing, dns.resolve), opts.Rand)
	if err != nil {
		dns.close()
		return nil, fmt.Errorf("runtime: %w", err)
	}
	lc := opts.Link
	if lc.SourceIP == "" {
		lc.SourceIP = opts.Config.Server.BindSourceAddr
	}
	if lc.TLS == nil && opts.Config.Server.TLSReplication {
		o := opts.Config.Server.TLS()
		files := link.TLSFiles{
			CertFile: opts.Config.Server.TLSCertFile,
			KeyFile:  opts.Config.Server.TLSKeyFile,
			CAFile:   opts.Config.Server.TLSCACertFile,
			CADir:    o.CACertDir,
		}
		if o.ClientCertFile != "" { // like Redis: the client certificate of outgoing links
			files.CertFile, files.KeyFile = o.ClientCertFile, o.ClientKeyFile
		}
		tc, err := link.NewTLSConfig(files)
		if err != nil {
			dns.close()
			return nil, fmt.Errorf("runtime: tls-replication: %w", err)
		}
		applyTLSOptions(tc, o) // tlsopts.go
		lc.TLS = tc
	}
	r := &Runtime{
		opts:     opts,
		log:      opts.Logger,
		core:     sc,
		links:    link.NewManager(lc),
		dns:      dns,
		start:    start,
		requests: make(chan request),
		internal: make(chan core.Event, 64),
		persists: make(chan core.Persist, 1),
		stopped:  make(chan struct{}),
		shutdown: make(chan struct{}),
		conns:    make(map[core.ConnID]*connInfo),
		replies:  make(map[uint64]chan resp.Value),
		scripts:  make(map[uint64]*os.Process),
	}
	srv, err := server.New(serverConfig(opts, r.log), r)
	if err != nil {
		r.links.Shutdown()
		r.dns.close()
		return nil, startupError(err)
	}
	r.srv = srv
	r.publish = srv.Publish
	return r, nil
}

// MyID returns the sentinel's run id.
func (r *Runtime) MyID() string { return r.core.MyID() }

// Addrs returns the addresses the server listens on (after Run started).
func (r *Runtime) Addrs() []net.Addr { return r.srv.Addrs() }

// Start binds the client-facing port. Run calls it if it was not called;
// calling it first lets the caller report bind errors before running.
func (r *Runtime) Start() error {
	return r.listen()
}
