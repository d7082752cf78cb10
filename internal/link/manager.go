package link

import (
	"crypto/tls"
	"fmt"
	"sync"
	"time"
)

// Defaults of [Config] fields left at zero.
const (
	DefaultDialTimeout   = 3 * time.Second
	DefaultWriteTimeout  = 10 * time.Second
	DefaultMaxPending    = 4096
	DefaultMaxReplyBytes = 16 << 20
	DefaultMaxBulkLen    = 8 << 20
	DefaultMaxArrayLen   = 1 << 16
	DefaultMaxDepth      = 16
	DefaultEventBuffer   = 1024
)

// Config tunes a [Manager]. The zero value is usable.
type Config struct {
	// DialTimeout bounds the TCP connect plus the TLS handshake.
	DialTimeout time.Duration
	// WriteTimeout bounds one write of queued commands; a peer that does
	// not read for that long loses its connection.
	WriteTimeout time.Duration
	// SourceIP, when set, is the local address outbound connections bind
	// to (bind-source-addr).
	SourceIP string
	// TLS, when set, wraps every connection in TLS (tls-replication yes).
	// A ServerName is filled from the dialled host when empty.
	TLS *tls.Config
	// MaxPending is the number of commands that may wait for a reply on one
	// connection; one more closes the connection with [ErrQueueFull].
	MaxPending int
	// MaxReplyBytes caps the bytes read from the socket for one reply.
	MaxReplyBytes int64
	// MaxBulkLen caps one bulk string of a reply.
	MaxBulkLen int64
	// MaxArrayLen caps the element count of one aggregate reply.
	MaxArrayLen int64
	// MaxDepth caps the nesting of aggregate replies.
	MaxDepth int
	// EventBuffer is the capacity of the events channel.
	EventBuffer int
}

func (c Config) withDefaults() Config {
	if c.DialTimeout <= 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.MaxPending <= 0 {
		c.MaxPending = DefaultMaxPending
	}
	if c.MaxReplyBytes <= 0 {
		c.MaxReplyBytes = DefaultMaxReplyBytes
	}
	if c.MaxBulkLen <= 0 {
		c.MaxBulkLen = DefaultMaxBulkLen
	}
	if c.MaxArrayLen <= 0 {
		c.MaxArrayLen = DefaultMaxArrayLen
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = DefaultMaxDepth
	}
	if c.EventBuffer <= 0 {
		c.EventBuffer = DefaultEventBuffer
	}
	return c
}

// Kind says whether a connection is a command or a pub/sub connection.
type Kind uint8

// Connection kinds.
const (
	// Cmd is a command connection: every reply answers a Send.
	Cmd Kind = iota + 1
	// PubSub is a pub/sub connection: "message" arrays become [Message]
	// events instead of replies.
	PubSub
)

// SendFlag modifies one [Manager.Send].
type SendFlag uint8

// Send flags.
const (
	// CloseOnError closes the connection with [ErrSubscribeFailed] after
	// delivering an error reply to this command (hiredis closes a pub/sub
	// connection whose SUBSCRIBE fails).
	CloseOnError SendFlag = 1 << iota
	// Deferred queues the command without starting a write: it leaves
	// with the connection's other queued commands, in one write, at the
	// next [Manager.Flush] at the latest (earlier if a write of that
	// connection is under way or a Send without Deferred follows). A caller that sends several commands per connection at
	// a time (the runtime, per core step) saves write syscalls and writer
	// goroutine starts.
	Deferred
)

// Manager owns the outbound connections. Its methods are safe for
// concurrent use and never block on the network.
type Manager struct {
	cfg    Config
	events chan Event
	done   chan struct{}
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns map[ConnID]*conn
	shut  bool
	held  []*conn // connections with Deferred output, for Flush

	cn connector // non-blocking connects (connector_linux.go)
}

// NewManager returns a Manager with the given configuration.
func NewManager(cfg Config) *Manager {
	cfg = cfg.withDefaults()
	return &Manager{
		cfg:    cfg,
		events: make(chan Event, cfg.EventBuffer),
		done:   make(chan struct{}),
		conns:  make(map[ConnID]*conn),
	}
}

// Events returns the channel every [Event] is delivered on. It is never
// closed; stop reading it after [Manager.Shutdown].
func (m *Manager) Events() <-chan Event { return m.events }

// Dial starts connecting to addr ("host:port") in the background and
// reports [Connected] or [Closed] for id. Commands may be sent at once;
// they are written when the connection is up. Dial fails only if id is
// already in use or the Manager is shut down.
func (m *Manager) Dial(id ConnID, addr string, kind Kind) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shut {
		return ErrShutdown
	}
	if _, ok := m.conns[id]; ok {
		return fmt.Errorf("link: dial %s: connection id %d already in use", addr, id)
	}
	c := newConn(m, id, addr, kind)
	m.conns[id] = c
	m.wg.Add(1)
	if !m.startConnect(c) {
		go c.run()
	}
	return nil
}

// Send queues a command on connection id. The answer arrives as a [Reply]
// with tag, or the tag is listed in the connection's [Closed] event. A
// Send on an unknown or closed connection returns false: no event will
// mention tag.
func (m *Manager) Send(id ConnID, tag Tag, args []string, flags SendFlag) bool {
	m.mu.Lock()
	c := m.conns[id]
	m.mu.Unlock()
	if c == nil {
		return false
	}
	ok, hold := c.send(tag, args, flags)
	if hold {
		m.mu.Lock()
		m.held = append(m.held, c)
		m.mu.Unlock()
	}
	return ok
}

// Flush writes the commands queued with [Deferred]: one write per
// connection. It never blocks on the network.
func (m *Manager) Flush() {
	m.mu.Lock()
	held := m.held
	m.held = nil
	m.mu.Unlock()
	for i, c := range held {
		c.release()
		held[i] = nil
	}
	if cap(held) <= 1024 {
		m.mu.Lock()
		if m.held == nil {
			m.held = held[:0] // reuse the array: no allocation per flush
		}
		m.mu.Unlock()
	}
}

// Close closes connection id. Nothing more is reported for it, except
// events already queued on the channel when Close was called; pending
// replies are dropped silently. Closing an unknown id does nothing.
func (m *Manager) Close(id ConnID) {
	m.mu.Lock()
	c := m.conns[id]
	delete(m.conns, id)
	m.mu.Unlock()
	if c != nil {
		c.kill()
	}
}

// Len returns the number of live connections.
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.conns)
}

// Shutdown closes every connection and waits for all goroutines of the
// Manager to return. Later Dials fail with [ErrShutdown].
func (m *Manager) Shutdown() {
	m.mu.Lock()
	if m.shut {
		m.mu.Unlock()
		m.wg.Wait()
		return
	}
	m.shut = true
	close(m.done)
	conns := m.conns
	m.conns = make(map[ConnID]*conn)
	m.mu.Unlock()
	for _, c := range conns {
		c.kill()
	}
	m.wg.Wait()
	m.cn.close()
}

// forget removes c from the live set if it is still registered under its
// id. It returns false when the caller already closed it.
func (m *Manager) forget(c *conn) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conns[c.id] == c {
		delete(m.conns, c.id)
		return true
	}
	return false
}

// emit delivers ev unless c was closed by the caller or the Manager shut
// down.
func (m *Manager) emit(c *conn, ev Event) bool {
	select {
	case <-c.killed:
		return false
	default:
	}
	select {
	case m.events <- ev:
		return true
	case <-c.killed:
		return false
	case <-m.done:
		return false
	}
}
