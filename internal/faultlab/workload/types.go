package workload

import (
	"context"
	"net"
	"time"
)

// Dialer opens a connection; it has the signature of (*net.Dialer).DialContext.
// The lab passes a dialer that creates the socket inside a host's network
// namespace; tests pass a plain net.Dialer.
type Dialer func(ctx context.Context, network, addr string) (net.Conn, error)

// orDefault returns d, or a plain net.Dialer's DialContext when d is nil.
func (d Dialer) orDefault() Dialer {
	if d != nil {
		return d
	}
	var nd net.Dialer
	return nd.DialContext
}

// ClientKind names the client library a Writer uses.
type ClientKind string

// The client kinds.
const (
	// ClientGosentinel is this module's client.NewFailoverClient.
	ClientGosentinel ClientKind = "gosentinel-client"
	// ClientGoRedis is go-redis's redis.NewFailoverClient.
	ClientGoRedis ClientKind = "go-redis"
)

// WriteMode says whether each write waits for replicas.
type WriteMode string

// The write modes (min-replicas-to-write is a redis setting, not a mode).
const (
	// ModePlain is RPUSH alone.
	ModePlain WriteMode = "plain"
	// ModeWait1 adds WAIT 1 100 after each RPUSH.
	ModeWait1 WriteMode = "wait1"
	// ModeWaitAll adds WAIT <Replicas> 100 after each RPUSH.
	ModeWaitAll WriteMode = "waitall"
	// ModePipeline sends PipelineDepth RPUSHes (one id each) in one
	// pipeline; each id is one Op (writer_kinds.go).
	ModePipeline WriteMode = "pipeline"
	// ModeMulti sends MULTI, RPUSH to two lists, EXEC: two Ops sharing
	// Op.Tx, which must be applied together or not at all (check_tx.go).
	ModeMulti WriteMode = "multi"
	// ModeQueue is a queue: the workers LPUSH ids to the writer's own
	// lists (QueueKeys) with WAIT 1, and one consumer takes them with
	// BRPOP; enqueues are Ops of KindEnqueue, deliveries of KindDequeue
	// (CheckQueue).
	ModeQueue WriteMode = "queue"
)

// Op kinds: the list-append writes that Check judges have Kind "".
const (
	KindEnqueue = "enqueue"
	KindDequeue = "dequeue"
)

// Result is the outcome of one operation.
type Result string

// The results.
const (
	// ResultOK: the node acknowledged the write (and, in a WAIT mode, as
	// many replicas as asked).
	ResultOK Result = "ok"
	// ResultFail: the write provably did not happen: the id never left
	// this process, or the node refused it with an error reply
	// (READONLY, NOREPLICAS, MASTERDOWN, LOADING, NOAUTH, ...) and it was
	// sent only once.
	ResultFail Result = "fail"
	// ResultUnknown: the write may or may not have happened (timeout or
	// connection lost after sending, WAIT acknowledged by fewer replicas
	// than asked, or a client retry resent it and then failed).
	ResultUnknown Result = "unknown"
)

// Op is one recorded write.
type Op struct {
	Writer, ID, Key  string
	Invoke, Complete time.Time
	Result           Result
	// Node is the address ("ip:port") of the node that executed the
	// RPUSH, from CLIENT INFO's laddr= ("" when unknown).
	Node string
	Err  string
	// Sent is how many times the id was written to a socket (0: never
	// left the process; >1: the client resent it).
	Sent int
	// Replicas is WAIT's reply (-1 when no WAIT was sent or answered).
	Replicas int
	// Kind is "" for a list append, KindEnqueue or KindDequeue for the
	// queue writer (Check skips them; CheckQueue judges them).
	Kind string `json:",omitempty"`
	// Tx names the transaction (ModeMulti) the write belongs to: its
	// first id ("" outside a transaction).
	Tx string `json:",omitempty"`
}

// Target is one node the sampler watches.
type Target struct {
	Name string // host name (or any unique label)
	Addr string // "ip:port"
	Kind string // "redis" | "sentinel"
}

// Target kinds.
const (
	KindRedis    = "redis"
	KindSentinel = "sentinel"
)

// Sample is one observation of one target.
type Sample struct {
	At    time.Time
	Round int // sampling round (tick number since the sampler started)
	// Done is when the sample's replies were in (zero: unknown): what it
	// saw held at some instant between At and Done.
	Done   time.Time
	Target string
	Kind   string // KindRedis | KindSentinel
	Addr   string // the target's address
	// redis: ROLE
	Role     string // master | slave | ? (Err set)
	MasterOf string // replicas: "ip:port" of their master
	Offset   int64
	// redis, master only: a probe SET lab:probe succeeded.
	AcceptsWrite bool
	// sentinels
	MasterAddr   string // GET-MASTER-ADDR-BY-NAME
	ConfigEpoch  int64  // SENTINEL MASTER config-epoch (-1 unknown, or changed during the sample)
	LeaderEpoch  int64  // SENTINEL MASTER leader-epoch (-1 unknown)
	CurrentEpoch int64  // latest current epoch heard from this sentinel (hello / +new-epoch), -1 unknown
	Flags        string // SENTINEL MASTER flags
	TILT         bool   // INFO sentinel sentinel_tilt:1
	Err          string
}

// Event is one message received from a sentinel's pub/sub (PSUBSCRIBE *),
// or one hello heard on a redis node's __sentinel__:hello channel
// (Channel HelloChannel, Sentinel = the sender, Via = the redis target).
// Channels starting with "lab:" are the sampler's own markers
// (subscription lost / re-established).
type Event struct {
	At       time.Time
	Sentinel string
	Channel  string
	Payload  string
	Via      string
}

// HelloChannel is the channel sentinels publish hellos to on redis nodes.
const HelloChannel = "__sentinel__:hello"

// Marker channels the sampler records about its own subscriptions.
const (
	ChanSubscribed   = "lab:subscribed"
	ChanDisconnected = "lab:disconnected"
)
