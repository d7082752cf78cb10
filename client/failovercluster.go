package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
)

// NewFailoverClusterClient returns a go-redis *redis.ClusterClient that
// routes read-only commands to replicas, as go-redis's function of the same
// name: ReplicaOnly sends them to a random replica (the master when no
// replica is usable), RouteByLatency to the node with the lowest latency
// (master included, RouteByLatencyTolerance widens the choice),
// RouteRandomly to a random node (master included). Without any of the
// three every command goes to the master, as in go-redis.
//
// Unlike go-redis, every node stays verified: writes (and reads routed to
// the master) go through the same master node as NewFailoverClient
// (sentinel resolution, ROLE master on every new connection, pool flush
// on a switch, no command to the old master after a +switch-master);
// replicas are the ones SENTINEL REPLICAS lists without s_down, o_down or
// disconnected (UseDisconnectedReplicas admits disconnected ones), each new
// connection to one verifies ROLE slave and refuses a node that left that
// list, and connections to a replica that left it (promoted, down,
// disconnected) stop taking commands at the next refresh. The list is
// re-read after every failover event, every ResolveCacheTTL when the
// cluster state reloads (go-redis reloads it every 10 s while the client
// is used) and by reconciliation. See docs/client.md, "Read routing".
func NewFailoverClusterClient(opt *FailoverOptions) *redis.ClusterClient {
	if opt == nil {
		opt = &FailoverOptions{}
	}
	o := opt.withDefaults()
	mo := o
	mo.ReplicaOnly = false // the master node of the cluster client
	mo.RouteByLatency, mo.RouteRandomly = false, false
	fc := &failoverCluster{opt: o, master: mo, label: "sentinel-master:" + o.MasterName}
	fc.replicas = newResolver(o, roleSlave)
	maxRedirects := o.MaxRetries
	if maxRedirects == 0 {
		maxRedirects = -1 // go-redis: -1 disables, 0 means its default
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{
		ClientName:              o.ClientName,
		NewClient:               fc.newNode,
		ClusterSlots:            fc.slots,
		MaxRedirects:            maxRedirects,
		ReadOnly:                o.ReplicaOnly,
		RouteByLatency:          o.RouteByLatency,
		RouteByLatencyTolerance: o.RouteByLatencyTolerance,
		RouteRandomly:           o.RouteRandomly,
		MinRetryBackoff:         orNoBackoff(o.MinRetryBackoff),
		MaxRetryBackoff:         orNoBackoff(o.MaxRetryBackoff),
		DialTimeout:             o.DialTimeout,
		ReadTimeout:             o.ReadTimeout,
		WriteTimeout:            o.WriteTimeout,
		ContextTimeoutEnabled:   o.ContextTimeoutEnabled,
		FailingTimeoutSeconds:   o.FailingTimeoutSeconds,
	})
	fc.replicas.onReplicas = func() { cc.ReloadState(context.Background()) }
	return cc
}

// orNoBackoff maps a retry backoff that withDefaults set to 0 ("no
// backoff", -1 in go-redis) back to go-redis's -1.
func orNoBackoff(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// failoverCluster is the state behind a NewFailoverClusterClient: the
// options, the replica resolver shared by the slot map and every replica
// node, and the label of the master node.
type failoverCluster struct {
	opt      FailoverOptions // with defaults
	master   FailoverOptions // opt for the master node (no routing options)
	label    string          // the master node's address in the slot map
	replicas *resolver       // replica list and replica connections
}

// slots is the ClusterSlots function: one slot range served by the
// master node (a label: its client follows the sentinels by itself) and
// the replicas the sentinels list as usable. When the replica list cannot
// be had the master alone serves reads too (as go-redis's replica-only
// client falls back to the master).
func (fc *failoverCluster) slots(ctx context.Context) ([]redis.ClusterSlot, error) {
	nodes := []redis.ClusterNode{{Addr: fc.label}}
	if reps, err := fc.replicas.replicaList(ctx); err == nil {
		for _, a := range reps {
			nodes = append(nodes, redis.ClusterNode{Addr: a})
		}
	} else {
		fc.replicas.log(slog.LevelDebug, "replica list unavailable, reads go to the master", "err", err)
	}
	return []redis.ClusterSlot{{Start: 0, End: 16383, Nodes: nodes}}, nil
}

// newNode is the ClusterOptions.NewClient function: the master label gets
// a failover client (its own resolver, hook and subscriptions), a replica
// address a client pinned to that replica whose dialer checks the replica
// list and ROLE.
func (fc *failoverCluster) newNode(copt *redis.Options) *redis.Client {
	if copt.Addr == fc.label {
		m := newClient(&fc.master, roleMaster)
		// The replica resolver stops for good when the master node's
		// pool is closed, i.e. when the cluster client is closed.
		fc.replicas.probeMu.Lock()
		fc.replicas.probe = m.WithTimeout(fc.opt.ReadTimeout)
		fc.replicas.ap = nil
		fc.replicas.probeMu.Unlock()
		return m
	}
	addr := copt.Addr
	if copt.NodeAddress != "" {
		// go-redis replaces a loopback host by the host of the node that
		// answered CLUSTER SLOTS (none here: ":port"); NodeAddress
		// keeps what the slot map said.
		addr = copt.NodeAddress
	}
	o := dataOptions(&fc.opt, fc.replicas, roleSlave)
	o.Addr = addr
	o.Dialer = func(ctx context.Context, _, _ string) (net.Conn, error) {
		return fc.replicas.dialReplicaAt(ctx, addr)
	}
	rdb := redis.NewClient(o)
	rdb.AddHook(replicaNodeHook{})
	return rdb
}

// replicaList returns the usable replicas, asking the sentinels when the
// list is older than ResolveCacheTTL.
func (r *resolver) replicaList(ctx context.Context) ([]string, error) {
	r.mu.Lock()
	fresh := r.valid && r.cacheFreshLocked()
	r.mu.Unlock()
	if !fresh {
		if err := r.resolveShared(ctx); err != nil {
			return nil, err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.replicas))
	for _, ri := range r.replicas {
		out = append(out, ri.addr)
	}
	return out, nil
}

// errNotUsableReplica is the dial error of a replica node whose address
// is no longer in the sentinels' list of usable replicas.
var errNotUsableReplica = errors.New("not a usable replica any more")

// dialReplicaAt opens a connection to the replica at addr for a
// NewFailoverClusterClient node: addr must be in the current usable list
// (asked again when the list is older than ResolveCacheTTL) and report
// ROLE slave on the fresh connection. A refusal is returned as a dial
// error (a *net.OpError with Op "dial"), so that go-redis's cluster client
// retries the command, then marks the node failing and routes the command
// to another node: nothing was sent.
func (r *resolver) dialReplicaAt(ctx context.Context, addr string) (_ net.Conn, err error) {
	end := r.beginDial()
	defer func() { end(err != nil) }()
	if r.closed() {
		return nil, &dialError{ErrClientClosed}
	}
	usable := func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return slices.ContainsFunc(r.replicas, func(ri replicaInfo) bool { return ri.addr == addr })
	}
	r.mu.Lock()
	fresh := r.valid && r.cacheFreshLocked()
	r.mu.Unlock()
	if !fresh {
		if err := r.resolveShared(ctx); err != nil {
			return nil, replicaDialError(addr, err)
		}
	}
	if !usable() {
		return nil, replicaDialError(addr, fmt.Errorf("replica %s: %w", addr, errNotUsableReplica))
	}
	c, err := r.dialVerify(ctx, addr, roleSlave)
	if err != nil {
		r.dropReplica(addr)
		return nil, replicaDialError(addr, err)
	}
	r.startBackground()
	return r.track(c, 0, addr), nil
}

// replicaDialError wraps err as a failed dial of addr.
func replicaDialError(addr string, err error) error {
	return &net.OpError{Op: "dial", Net: "tcp", Addr: nodeAddr(addr), Err: &dialError{err}}
}

// nodeAddr is a net.Addr for a "host:port" string.
type nodeAddr string

// Network implements net.Addr.
func (a nodeAddr) Network() string { return "tcp" }

// String implements net.Addr.
func (a nodeAddr) String() string { return string(a) }

// replicaNodeHook makes the pre-send failure of a connection that a
// replica refresh retired (ErrStaleConnection: the replica was promoted,
// went down or was disconnected) look like what it is to go-redis's
// cluster client, a command that never left: a failed dial, which it
// retries and then routes to another node.
type replicaNodeHook struct{}

// DialHook passes dials through.
func (replicaNodeHook) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook rewrites ErrStaleConnection.
func (replicaNodeHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if errors.Is(err, ErrStaleConnection) {
			err = &net.OpError{Op: "dial", Net: "tcp", Err: err}
			cmd.SetErr(err)
		}
		return err
	}
}

// ProcessPipelineHook rewrites ErrStaleConnection.
func (replicaNodeHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		if errors.Is(err, ErrStaleConnection) {
			err = &net.OpError{Op: "dial", Net: "tcp", Err: err}
		}
		return err
	}
}
