package core

// LinkID identifies an instance link (sentinel.c instanceLink): the pair of
// connections to one monitored instance, or the single command connection
// to a peer sentinel, shared by every master that peer watches (§21). The
// core assigns LinkIDs in [Connect] effects.
type LinkID uint64

// ConnID identifies one physical connection; a reconnection gets a new
// ConnID, so events about an old connection are recognised and ignored.
type ConnID uint64

// ConnType says which connection of a link a [Connect] opens.
type ConnType uint8

// Connection types.
const (
	ConnCmd    ConnType = iota + 1 // the command connection (cc)
	ConnPubSub                     // the pub/sub connection (pc), masters and replicas only
)

// String returns "cmd" or "pubsub".
func (t ConnType) String() string {
	if t == ConnPubSub {
		return "pubsub"
	}
	return "cmd"
}

// Tag matches a [Reply] to its [Send]; tags are unique per Sentinel.
type Tag uint64

// Event is an input to [Sentinel.Step].
type Event interface{ isEvent() }

// Tick is the timer event (sentinelTimer). See the package doc for how
// often the runtime must deliver it.
type Tick struct{}

// LinkConnected reports that the connection of a [Connect] is established.
// LocalIP is the local address of the socket, used as the announced IP in
// hello messages when announce-ip is not set.
type LinkConnected struct {
	Link    LinkID
	Conn    ConnID
	LocalIP string
}

// LinkClosed reports that a connection failed to connect or was closed by
// the peer or by an error. It cancels every reply pending on it.
type LinkClosed struct {
	Link LinkID
	Conn ConnID
	Err  error
}

// Reply is the answer to the [Send] with the same Tag. Outbound links
// should speak RESP2, as hiredis does for real Sentinel; if RESP3 is used,
// verbatim strings (INFO) must be delivered as KindBulk and maps as
// KindArray, since the core checks reply shapes the way sentinel.c does
// (e.g. IS-MASTER-DOWN-BY-ADDR must be an array of [int, string, int]).
type Reply struct {
	Link  LinkID
	Conn  ConnID
	Tag   Tag
	Value Value
}

// Message is a pub/sub message received on a pub/sub connection (the hello
// channel).
type Message struct {
	Link    LinkID
	Conn    ConnID
	Channel string
	Payload string
}

// Request is a client command the core answers with exactly one [Respond]
// carrying the same ID (possibly in a later Step, after a persist). Args
// holds the command and its arguments as received, e.g.
// ["SENTINEL", "masters"], ["ROLE"], ["PUBLISH", "__sentinel__:hello", p].
// The core handles SENTINEL (all subcommands), ROLE and PUBLISH; the server
// handles everything else and asks [Sentinel.InfoSection] for INFO.
type Request struct {
	ID     uint64
	Client uint64 // opaque client id, for logs only
	Args   []string
}

// PersistDone reports the outcome of the [Persist] with the same Seq.
type PersistDone struct {
	Seq uint64
	Err error
}

// ScriptStarted reports the pid of a script started by [RunScript].
type ScriptStarted struct {
	ID  uint64
	PID int
}

// ScriptDone reports the end of a script started by [RunScript]. Exactly
// one of the fields describes the outcome: StartErr when fork/exec failed,
// Signal > 0 when it was killed by a signal, else ExitCode.
type ScriptDone struct {
	ID       uint64
	ExitCode int
	Signal   int
	StartErr error
}

func (Tick) isEvent()          {}
func (LinkConnected) isEvent() {}
func (LinkClosed) isEvent()    {}
func (Reply) isEvent()         {}
func (Message) isEvent()       {}
func (Request) isEvent()       {}
func (PersistDone) isEvent()   {}
func (ScriptStarted) isEvent() {}
func (ScriptDone) isEvent()    {}
