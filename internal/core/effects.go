package core

import (
	"strconv"
	"strings"
)

// Role is the kind of instance a link talks to.
type Role uint8

// Instance roles.
const (
	RoleMaster Role = iota + 1
	RoleReplica
	RoleSentinel
)

// String returns "master", "slave" or "sentinel", the instance type names
// of Sentinel events.
func (r Role) String() string {
	switch r {
	case RoleMaster:
		return "master"
	case RoleReplica:
		return "slave"
	case RoleSentinel:
		return "sentinel"
	}
	return "unknown"
}

// Level is the log level of an [Emit] or [Log].
type Level uint8

// Log levels, as in redis.conf loglevel.
const (
	LevelDebug Level = iota + 1
	LevelVerbose
	LevelNotice
	LevelWarning
)

// Effect is an output of [Sentinel.Step], executed in order by the runtime.
type Effect interface{ isEffect() }

// Connect asks the runtime to dial Addr (resolving Addr.Host first when
// Addr.IP is empty) and report [LinkConnected] or [LinkClosed] for Conn.
// The core then sends the handshake (AUTH, CLIENT SETNAME, PING or
// SUBSCRIBE) itself. Role tells the runtime which TLS/auth setup applies.
type Connect struct {
	Link LinkID
	Conn ConnID
	Type ConnType
	Role Role
	Addr Addr
}

// Close asks the runtime to close a connection. Nothing more is reported
// for it.
type Close struct {
	Link LinkID
	Conn ConnID
}

// Send asks the runtime to write a command on a connection. Args are final
// (command names already mapped through rename-command). The runtime
// reports the answer as a [Reply] with the same Tag. For the SUBSCRIBE of a
// pub/sub connection, the Reply is the subscription confirmation (or the
// error); later messages arrive as [Message] events.
type Send struct {
	Link LinkID
	Conn ConnID
	Tag  Tag
	Args []string
	// Kind says what the command is for, so that nobody has to read Args
	// (rename-command may have changed their names).
	Kind SendKind
}

// SendKind says what a [Send] is for, and so what its [Reply] is read as.
type SendKind uint8

const (
	// SendOther is a command whose reply is discarded (CLIENT SETNAME, SLAVEOF, CONFIG REWRITE, SCRIPT KILL, ...).
	SendOther SendKind = iota
	// SendPing is the PING whose reply keeps an instance out of SDOWN.
	SendPing
	// SendInfo is INFO (role, replicas, replication offsets).
	SendInfo
	// SendHello is the PUBLISH of a hello message.
	SendHello
	// SendAskMasterDown is SENTINEL IS-MASTER-DOWN-BY-ADDR to a peer.
	SendAskMasterDown
	// SendSubscribe is the SUBSCRIBE to the hello channel on a pub/sub
	// connection; an error reply means the connection is useless.
	SendSubscribe
	// SendPeerMaster is SENTINEL MASTER to a peer sentinel: the vote
	// gate's check that a vote request for a master we see up comes from
	// a COORDINATED failover (votegate.go).
	SendPeerMaster
	// SendAuth is the AUTH of a new connection. Its reply is discarded as
	// sentinel.c does, but an error is logged (authwarn.go).
	SendAuth
)

// Emit is a Sentinel event (reference §10): log "<Type> <Msg>" at Level,
// and publish Msg on the channel named Type to the sentinel's subscribers
// unless Level is LevelDebug. Notification scripts are already handled by
// the core ([RunScript]).
//
// At is the time (the now of the Step) at which the event happened. It
// differs from the Step that returns the Emit only for +new-epoch and
// +vote-for-leader that revealed a change not yet on disk, and the events
// of the same master that followed them in their step: those are held
// until the [PersistDone] that covers the change ("Persist before reveal"
// in the package doc), so events of steps in between may come first.
type Emit struct {
	Type string
	// Msg is the text form, derived from the fields below and cut at
	// MaxEventLen bytes as redis-sentinel does (Subject and Detail are
	// whole).
	Msg   string
	Level Level
	At    Millis
	// Subject is the instance the event is about, when Msg starts with
	// its "%@" prefix; nil for +new-epoch, +vote-for-leader,
	// +switch-master, +tilt and the script events.
	Subject *Subject
	// Master is the name of the master the event concerns ("" for +tilt
	// and the script events).
	Master string
	// Detail is Msg after the "%@" prefix (all of Msg without a Subject).
	Detail string
}

// Subject is an instance as the "%@" prefix of an event message shows it:
// "<role> <name> <ip> <port>", plus " @ <master> <ip> <port>" for a
// replica or a sentinel.
type Subject struct {
	Role Role
	Name string // master name, "ip:port" of a replica, run id of a sentinel
	IP   string // announced host (announce-hostnames) or IP
	Port int
	// Master, MasterIP and MasterPort are the master of a replica or a
	// sentinel, or the master itself.
	Master     string
	MasterIP   string
	MasterPort int
}

// String is the "%@" prefix.
func (sub Subject) String() string {
	str := sub.Role.String() + " " + sub.Name + " " + sub.IP + " " + strconv.Itoa(sub.Port)
	if sub.Role != RoleMaster {
		str += " @ " + sub.Master + " " + sub.MasterIP + " " + strconv.Itoa(sub.MasterPort)
	}
	return str
}

// MaxEventLen is the longest [Emit] Msg: sentinelEvent formats an event
// into a LOG_MAX_LEN (1024) byte buffer, so redis-sentinel logs,
// publishes and passes to the notification script at most 1023 bytes and
// cuts a longer message (a long master name).
const MaxEventLen = 1023

// eventText is the Msg of an event: the "%@" prefix of sub (if not nil)
// and detail, separated by a space, cut at MaxEventLen bytes. It builds
// the cut text directly: a master name of kilobytes does not cost a
// full-length copy per event (a SENTINEL RESET * of many such masters
// emits hundreds of events in one step).
func eventText(sub *Subject, detail string) string {
	if sub == nil {
		if len(detail) > MaxEventLen {
			return strings.Clone(detail[:MaxEventLen])
		}
		return detail
	}
	// The ports are formatted into arrays on the stack (strconv.Itoa
	// allocates for every port above 99) and written where their
	// placeholders (parts 6 and 12) stand.
	var pb, mpb [20]byte
	port := strconv.AppendInt(pb[:0], int64(sub.Port), 10)
	var mport []byte
	parts := [...]string{sub.Role.String(), " ", sub.Name, " ", sub.IP, " ", "", "", "", "", "", "", "", "", ""}
	n := 7
	total := len(port)
	if sub.Role != RoleMaster {
		mport = strconv.AppendInt(mpb[:0], int64(sub.MasterPort), 10)
		parts[7], parts[8], parts[9], parts[10], parts[11] = " @ ", sub.Master, " ", sub.MasterIP, " "
		n = 13
		total += len(mport)
	}
	if detail != "" {
		parts[n], parts[n+1] = " ", detail
		n += 2
	}
	for _, p := range parts[:n] {
		total += len(p)
	}
	var b strings.Builder
	b.Grow(min(total, MaxEventLen))
	for k, p := range parts[:n] {
		var num []byte
		switch k {
		case 6:
			num = port
		case 12:
			num = mport
		}
		if num != nil {
			if left := MaxEventLen - b.Len(); len(num) > left {
				b.Write(num[:left])
				break
			}
			b.Write(num)
			continue
		}
		if left := MaxEventLen - b.Len(); len(p) > left {
			b.WriteString(p[:left])
			break
		}
		b.WriteString(p)
	}
	return b.String()
}

// Log is a log line that is not an event (e.g. "<runid> voted for <leader>
// <epoch>"); it is never published.
type Log struct {
	Level Level
	Msg   string
}

// Persist asks the runtime to write State to the generated part of
// sentinel.conf (atomically, fsynced) and report [PersistDone] with Seq.
// Seq increases with every Persist. See "Persist before reveal" in the
// package doc.
type Persist struct {
	Seq   uint64
	State State
}

// Respond is the reply to the [Request] with the same ID.
type Respond struct {
	ID    uint64
	Value Value
}

// RunScript asks the runtime to fork/exec Path with Args (argv[1:]) without
// a shell, and report [ScriptStarted] then [ScriptDone] with ID.
type RunScript struct {
	ID   uint64
	Path string
	Args []string
}

// KillScript asks the runtime to SIGKILL a running script (it ran longer
// than Timing.ScriptMaxRuntime); its ScriptDone follows.
type KillScript struct {
	ID  uint64
	PID int
}

// Exit asks the runtime to terminate the process with Code (SENTINEL
// SIMULATE-FAILURE crash-after-election / crash-after-promotion: 99).
type Exit struct {
	Code int
}

func (Connect) isEffect()    {}
func (Close) isEffect()      {}
func (Send) isEffect()       {}
func (Emit) isEffect()       {}
func (Log) isEffect()        {}
func (Persist) isEffect()    {}
func (Respond) isEffect()    {}
func (RunScript) isEffect()  {}
func (KillScript) isEffect() {}
func (Exit) isEffect()       {}
