package server

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("server: closed")

// ErrUsersAndACLFile is returned by New when both users and an aclfile are
// configured; the text is Redis' startup message for that case.
var ErrUsersAndACLFile = errors.New("Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.")

// Server is the client-facing listener. Create it with New, then Start.
type Server struct {
	cfg     Config
	backend Backend
	addrs   AddrCache // backend's optional fast path (nil if none)
	tab     *table
	cmds    map[string]*command // dispatch names after rename-command
	live    map[*command]bool   // top-level commands still in cmds
	acl     *acl
	aclLog  aclLog
	ps      pubsub
	start   time.Time
	runID   string

	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	closed    bool
	listeners []net.Listener
	clients   map[int64]*client
	parker    parker // idle connections without a goroutine (park_linux.go)

	nextID  atomic.Int64
	readers atomic.Int64 // client goroutines reading (not parked)
	// starting holds a token for each accepted connection whose goroutine
	// has not started running yet (accept.go).
	starting chan struct{}
	wg       sync.WaitGroup
	stats    stats
}

// stats are the counters shown in INFO stats.
type stats struct {
	connections  atomic.Int64
	commands     atomic.Int64
	rejected     atomic.Int64
	netIn        atomic.Int64
	netOut       atomic.Int64
	errorReplies atomic.Int64
}

// New validates cfg and returns a server that is not listening yet.
func New(cfg Config, backend Backend) (*Server, error) {
	if backend == nil {
		return nil, errors.New("server: nil backend")
	}
	cfg = cfg.withDefaults()
	tab, err := loadTable()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, backend: backend, tab: tab, clients: map[int64]*client{}, start: time.Now(),
		starting: make(chan struct{}, maxStarting)}
	s.addrs, _ = backend.(AddrCache)
	if s.cmds, err = renameCommands(tab, cfg.RenameCommands); err != nil {
		return nil, err
	}
	s.live = make(map[*command]bool, len(s.cmds))
	for _, c := range s.cmds {
		s.live[c] = true
	}
	s.acl = newACL(tab)
	if cfg.Requirepass != "" {
		if _, err := s.acl.setUser("default", []string{"resetpass", ">" + cfg.Requirepass}); err != nil {
			return nil, fmt.Errorf("server: requirepass: %w", err)
		}
	}
	for _, line := range cfg.Users {
		args, err := resp.SplitArgs([]byte(line))
		if err != nil || len(args) == 0 {
			return nil, fmt.Errorf("server: user %q: bad syntax", line)
		}
		rules := make([]string, len(args)-1)
		for i, a := range args[1:] {
			rules[i] = string(a)
		}
		if bad, err := s.acl.setUser(string(args[0]), configUserRules(string(args[0]), rules)); err != nil {
			return nil, fmt.Errorf("server: user %q: rule %q: %w", args[0], bad, err)
		}
	}
	for _, ur := range cfg.UserRules {
		if len(ur) == 0 {
			return nil, errors.New("server: empty user rule list")
		}
		if bad, err := s.acl.setUser(ur[0], configUserRules(ur[0], ur[1:])); err != nil {
			return nil, fmt.Errorf("server: user %q: rule %q: %w", ur[0], bad, err)
		}
	}
	if cfg.ACLFile != "" {
		if len(cfg.Users) > 0 || len(cfg.UserRules) > 0 {
			return nil, ErrUsersAndACLFile
		}
		if _, err := s.acl.loadACLFile(cfg.ACLFile); err != nil {
			return nil, fmt.Errorf("server: aclfile: %w", err)
		}
	}
	s.runID = cfg.RunID
	if s.runID == "" {
		var b [20]byte
		_, _ = rand.Read(b[:])
		s.runID = hex.EncodeToString(b[:])
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.ps.init()
	return s, nil
}

// configUserRules returns the rules of a "user" directive as Redis'
// ACLLoadConfiguredUsers applies them: the default user is reset first
// ("user default off" leaves "off sanitize-payload resetchannels -@all").
func configUserRules(name string, rules []string) []string {
	if name != "default" {
		return rules
	}
	return append([]string{"reset"}, rules...)
}

// Start binds every address of Config.Bind and serves them in background
// goroutines. Optional addresses ("-" prefix) that cannot be bound are
// skipped; any other bind error closes what was opened and is returned.
func (s *Server) Start() error {
	return s.listen(s.cfg.Port, nil)
}

// StartTLS is Start for the TLS port (tls-port): it binds every address
// of Config.Bind on port and serves TLS with cfg there. Clients of both
// ports share everything (ACL, pub/sub, maxclients).
func (s *Server) StartTLS(port int, cfg *tls.Config) error {
	if cfg == nil {
		return errors.New("server: StartTLS: nil TLS config")
	}
	return s.listen(port, cfg)
}

// listen binds Config.Bind on port (wrapped in TLS when tc is set) and
// serves the listeners.
func (s *Server) listen(port int, tc *tls.Config) error {
	var ls []net.Listener
	for _, b := range s.cfg.Bind {
		optional := strings.HasPrefix(b, "-")
		b = strings.TrimPrefix(b, "-")
		network, host := "tcp", b
		switch b {
		case "*", "0.0.0.0":
			network, host = "tcp4", "0.0.0.0"
		case "::*", "::":
			network, host = "tcp6", "::"
		}
		l, err := net.Listen(network, net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			if optional {
				s.cfg.Logf("server: skipping optional bind %s: %v", b, err)
				continue
			}
			for _, x := range ls {
				_ = x.Close()
			}
			return fmt.Errorf("server: listen %s: %w", b, err)
		}
		if tc != nil {
			l = tls.NewListener(l, tc)
		}
		ls = append(ls, l)
	}
	for _, l := range ls {
		if err := s.Serve(l); err != nil {
			for _, x := range ls {
				_ = x.Close()
			}
			return err
		}
	}
	return nil
}

// Serve accepts connections on l in a background goroutine until Close.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.listeners = append(s.listeners, l)
	s.wg.Add(1)
	go s.acceptLoop(l)
	return nil
}

// Addrs returns the addresses being listened on.
func (s *Server) Addrs() []net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]net.Addr, len(s.listeners))
	for i, l := range s.listeners {
		out[i] = l.Addr()
	}
	return out
}

// Close stops listening, disconnects every client and waits for all the
// server's goroutines to finish.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for _, l := range s.listeners {
		_ = l.Close()
	}
	for _, c := range s.clients {
		c.kill()
	}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	return nil
}

// removeClient forgets a disconnected client.
func (s *Server) removeClient(c *client) {
	s.mu.Lock()
	delete(s.clients, c.id)
	s.mu.Unlock()
}

// clientList returns the connected clients ordered by id.
func (s *Server) clientList() []*client {
	s.mu.Lock()
	out := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		out = append(out, c)
	}
	s.mu.Unlock()
	sortClients(out)
	return out
}

// NumClients returns the number of connected clients, as INFO clients
// shows it in connected_clients (for the metrics).
func (s *Server) NumClients() int { return s.numClients() }

// numClients returns the number of connected clients.
func (s *Server) numClients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.clients)
}

// renameCommands builds the dispatch map with rename-command applied.
func renameCommands(tab *table, renames map[string]string) (map[string]*command, error) {
	cmds := make(map[string]*command, len(tab.top))
	for name, c := range tab.top {
		cmds[name] = c
	}
	for from, to := range renames {
		from, to = strings.ToLower(from), strings.ToLower(to)
		c := tab.top[from]
		if c == nil {
			return nil, fmt.Errorf("server: rename-command: no such command %q", from)
		}
		delete(cmds, from)
		if to == "" {
			continue
		}
		if _, taken := cmds[to]; taken {
			return nil, fmt.Errorf("server: rename-command: target name %q already in use", to)
		}
		cmds[to] = c
	}
	return cmds, nil
}
