package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// Roles of a modelled redis-server.
const (
	roleMaster = "master"
	roleSlave  = "slave"
)

// instance is a modelled redis-server 7.0.15: just what Sentinel observes
// and changes (role, replication link and offset, run id, priority,
// loading, pub/sub, MULTI/EXEC, CONFIG REWRITE, CLIENT KILL).
type instance struct {
	id    int
	group int // the master group (monitored master name) it belongs to
	addr  core.Addr

	gen          int   // bumped by crash, restart, pause, resume: stale fault timers are ignored
	up           bool  // the process is running
	paused       bool  // SIGSTOPped: accepts connections, processes nothing
	pausedSince  int64 // for the replica-side repl-timeout
	runID        string
	loadingUntil int64 // -LOADING until this time after a restart

	role       string
	masterHost string // when role is slave
	masterPort int
	linkUp     bool
	downSince  int64 // 0: never connected (INFO shows -1)
	syncUntil  int64 // a full sync in progress completes at this time (0: none)
	offset     int64
	priority   int
	announced  bool
	// shownPriority is the slave_priority of the last INFO rendered while
	// a replica (-1: never): what the sentinels can know, since a master's
	// INFO has no slave_priority line. prevPriority and priorityAt are
	// the value before the operator's last change and its time.
	shownPriority int
	prevPriority  int
	priorityAt    int64
	// PSYNC (psync.go): replication id, second id valid up to secondOff,
	// and the kind and start offset of the sync in progress.
	replID      string
	replID2     string
	secondOff   int64
	syncPartial bool
	syncFrom    int64
	// passwords are the valid passwords of the default user (nil: no
	// AUTH needed); two during a rotation (ACL SETUSER default >new).
	passwords []string
	// infoDenied: an operator's ACL denies INFO (-NOPERM); infoDisturbed
	// is when that last started or ended (infodeny.go).
	infoDenied    bool
	infoDisturbed int64

	// The config file: what the process comes back with after a restart.
	// SLAVEOF changes it only when CONFIG REWRITE follows.
	confRole       string
	confMasterHost string
	confMasterPort int

	backlog []func() // requests received while paused, replayed on SIGCONT

	// lastDisturbed is the last time this instance crashed, restarted,
	// paused, resumed or changed role; S6 only judges rankings among
	// replicas that were undisturbed for a while.
	lastDisturbed int64
}

func (in *instance) loading(now int64) bool { return now < in.loadingUntil }

// isReplicaOf reports whether in is configured to replicate from a.
func (in *instance) isReplicaOf(a core.Addr) bool {
	if in.role != roleSlave || in.masterPort != a.Port {
		return false
	}
	return (a.IP != "" && in.masterHost == a.IP) || (isName(in.masterHost) && strings.EqualFold(in.masterHost, a.Host))
}

// execute runs one command received on c (not inside MULTI handling) and
// returns its reply. It never panics on odd input.
func (w *World) execute(in *instance, c *conn, args []string) core.Value {
	if len(args) == 0 {
		return core.ErrorValue("ERR empty command")
	}
	cmd := strings.ToUpper(args[0])
	now := w.sch.now
	if c.subscribed {
		switch cmd {
		case "SUBSCRIBE", "PSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "PING":
		default:
			return core.ErrorValue(fmt.Sprintf("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context", strings.ToLower(args[0])))
		}
	}
	if c.multi && cmd != "EXEC" && cmd != "DISCARD" && cmd != "MULTI" {
		c.queued = append(c.queued, args)
		if in.loading(now) && !okLoading(cmd) {
			c.multiErr = true
		}
		return core.Status("QUEUED")
	}
	if in.loading(now) && !okLoading(cmd) {
		return core.ErrorValue("LOADING Redis is loading the dataset in memory")
	}
	switch cmd {
	case "MULTI":
		if c.multi {
			return core.ErrorValue("ERR MULTI calls can not be nested")
		}
		c.multi, c.queued, c.multiErr = true, nil, false
		return core.Status("OK")
	case "DISCARD":
		if !c.multi {
			return core.ErrorValue("ERR DISCARD without MULTI")
		}
		c.multi, c.queued = false, nil
		return core.Status("OK")
	case "EXEC":
		if !c.multi {
			return core.ErrorValue("ERR EXEC without MULTI")
		}
		q, aborted := c.queued, c.multiErr
		c.multi, c.queued, c.multiErr = false, nil, false
		if aborted {
			return core.ErrorValue("EXECABORT Transaction discarded because of previous errors.")
		}
		out := make([]core.Value, 0, len(q))
		for _, a := range q {
			out = append(out, w.execute(in, c, a))
		}
		w.tracef("redis %s EXEC %s", in.addr.IP, summarize(q))
		return core.Array(out...)
	case "PING":
		if c.subscribed {
			return core.Array(core.Bulk("pong"), core.Bulk(""))
		}
		return core.Status("PONG")
	case "AUTH":
		if in.passwords == nil {
			return core.ErrorValue("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
		}
		for _, p := range in.passwords {
			if len(args) >= 2 && args[len(args)-1] == p {
				c.authed = true
				return core.Status("OK")
			}
		}
		return core.ErrorValue("WRONGPASS invalid username-password pair or user is disabled.")
	case "CLIENT":
		return w.clientCommand(in, c, args)
	case "INFO":
		if in.infoDenied {
			return core.ErrorValue(noPermInfo)
		}
		return core.Bulk(w.renderInfo(in))
	case "ROLE":
		return w.roleReply(in)
	case "SLAVEOF", "REPLICAOF":
		if len(args) != 3 {
			return core.ErrorValue("ERR wrong number of arguments for '" + strings.ToLower(cmd) + "' command")
		}
		return w.slaveOf(in, args[1], args[2])
	case "CONFIG":
		if len(args) >= 2 && strings.EqualFold(args[1], "REWRITE") {
			in.confRole, in.confMasterHost, in.confMasterPort = in.role, in.masterHost, in.masterPort
			return core.Status("OK")
		}
		return core.ErrorValue("ERR unknown subcommand or wrong number of arguments for 'config' command")
	case "PUBLISH":
		if len(args) != 3 {
			return core.ErrorValue("ERR wrong number of arguments for 'publish' command")
		}
		return core.Int(int64(w.publish(in, args[1], args[2], 0)))
	case "SUBSCRIBE":
		if len(args) < 2 {
			return core.ErrorValue("ERR wrong number of arguments for 'subscribe' command")
		}
		c.subscribed = true
		c.channels = append(c.channels[:0], args[1:]...)
		return core.Array(core.Bulk("subscribe"), core.Bulk(args[1]), core.Int(int64(len(args)-1)))
	case "SCRIPT":
		return core.ErrorValue("NOTBUSY No scripts in execution right now.")
	}
	return core.ErrorValue(fmt.Sprintf("ERR unknown command '%s', with args beginning with: ", args[0]))
}

// okLoading reports whether a command runs while the dataset is loading
// (CMD_LOADING in redis 7.0).
func okLoading(cmd string) bool {
	switch cmd {
	case "INFO", "AUTH", "CLIENT", "SUBSCRIBE", "PSUBSCRIBE", "UNSUBSCRIBE", "PUBLISH",
		"MULTI", "EXEC", "DISCARD", "ROLE", "CONFIG", "SCRIPT":
		return true
	}
	return false
}

// clientCommand implements CLIENT SETNAME and CLIENT KILL TYPE.
func (w *World) clientCommand(in *instance, c *conn, args []string) core.Value {
	if len(args) < 2 {
		return core.ErrorValue("ERR wrong number of arguments for 'client' command")
	}
	switch strings.ToUpper(args[1]) {
	case "SETNAME":
		if len(args) != 3 {
			return core.ErrorValue("ERR wrong number of arguments for 'client|setname' command")
		}
		c.name = args[2]
		return core.Status("OK")
	case "KILL":
		if len(args) == 4 && strings.EqualFold(args[2], "TYPE") {
			pubsub := strings.EqualFold(args[3], "pubsub")
			if !pubsub && !strings.EqualFold(args[3], "normal") {
				return core.ErrorValue("ERR Unknown client type '" + args[3] + "'")
			}
			return core.Int(int64(w.killClients(in, c, pubsub)))
		}
		return core.ErrorValue("ERR syntax error")
	}
	return core.ErrorValue("ERR unknown subcommand '" + args[1] + "'. Try CLIENT HELP.")
}

// slaveOf implements SLAVEOF/REPLICAOF host port and NO ONE.
func (w *World) slaveOf(in *instance, host, portS string) core.Value {
	now := w.sch.now
	if strings.EqualFold(host, "NO") && strings.EqualFold(portS, "ONE") {
		if in.role == roleSlave {
			in.role, in.masterHost, in.masterPort = roleMaster, "", 0
			in.linkUp, in.syncUntil = false, 0
			in.lastDisturbed = now
			if w.opt.PSync {
				w.psyncPromoted(in)
			}
			w.tracef("redis %s is now master", in.addr.IP)
		}
		return core.Status("OK")
	}
	port, err := strconv.Atoi(portS)
	if err != nil || port < 0 || port > 65535 {
		return core.ErrorValue("ERR Invalid master port")
	}
	if in.role == roleSlave && in.masterHost == host && in.masterPort == port {
		return core.Status("OK Already connected to specified master")
	}
	if in.role == roleSlave && in.linkUp {
		in.downSince = now
	}
	in.role, in.masterHost, in.masterPort = roleSlave, host, port
	in.linkUp, in.syncUntil = false, 0
	in.lastDisturbed = now
	w.tracef("redis %s replicaof %s:%d", in.addr.IP, host, port)
	return core.Status("OK")
}

// roleReply renders ROLE.
func (w *World) roleReply(in *instance) core.Value {
	if in.role == roleMaster {
		var reps []core.Value
		for _, r := range w.replicasOf(in) {
			reps = append(reps, core.Array(core.Bulk(r.addr.Host), core.Bulk(strconv.Itoa(r.addr.Port)), core.Bulk(strconv.FormatInt(r.offset, 10))))
		}
		return core.Array(core.Bulk("master"), core.Int(in.offset), core.Array(reps...))
	}
	state := "connect"
	if in.linkUp {
		state = "connected"
	} else if in.syncUntil != 0 {
		state = "sync"
	}
	return core.Array(core.Bulk("slave"), core.Bulk(in.masterHost), core.Int(int64(in.masterPort)), core.Bulk(state), core.Int(in.offset))
}

// replicasOf lists the replicas attached to in (link up or syncing), in
// instance order.
func (w *World) replicasOf(in *instance) []*instance {
	var out []*instance
	for _, r := range w.inst {
		if r != in && r.up && r.isReplicaOf(in.addr) && (r.linkUp || r.syncUntil != 0) {
			out = append(out, r)
		}
	}
	return out
}

// renderInfo renders INFO with the fields Sentinel parses (reference §16).
func (w *World) renderInfo(in *instance) string {
	now := w.sch.now
	var b strings.Builder
	line := func(format string, a ...any) {
		fmt.Fprintf(&b, format, a...)
		b.WriteString("\r\n")
	}
	line("# Server")
	line("redis_version:7.0.15")
	line("redis_mode:standalone")
	line("run_id:%s", in.runID)
	line("tcp_port:%d", in.addr.Port)
	line("")
	line("# Persistence")
	if in.loading(now) {
		line("loading:1")
	} else {
		line("loading:0")
	}
	line("")
	line("# Replication")
	line("role:%s", in.role)
	if in.role == roleSlave {
		line("master_host:%s", in.masterHost)
		line("master_port:%d", in.masterPort)
		if in.linkUp {
			line("master_link_status:up")
			line("master_last_io_seconds_ago:0")
		} else {
			line("master_link_status:down")
			line("master_last_io_seconds_ago:-1")
		}
		if in.syncUntil != 0 {
			line("master_sync_in_progress:1")
		} else {
			line("master_sync_in_progress:0")
		}
		line("slave_read_repl_offset:%d", in.offset)
		line("slave_repl_offset:%d", in.offset)
		if !in.linkUp {
			if in.downSince == 0 {
				line("master_link_down_since_seconds:-1")
			} else {
				line("master_link_down_since_seconds:%d", (now-in.downSince)/1000)
			}
		}
		line("slave_priority:%d", in.priority)
		in.shownPriority = in.priority
		line("slave_read_only:1")
		if in.announced {
			line("replica_announced:1")
		} else {
			line("replica_announced:0")
		}
	}
	reps := w.replicasOf(in)
	line("connected_slaves:%d", len(reps))
	for i, r := range reps {
		state := "online"
		if !r.linkUp {
			state = "wait_bgsave"
		}
		line("slave%d:ip=%s,port=%d,state=%s,offset=%d,lag=0", i, r.addr.Host, r.addr.Port, state, r.offset)
	}
	line("master_failover_state:no-failover")
	line("master_replid:%s", in.runID)
	line("master_repl_offset:%d", in.offset)
	return b.String()
}

// summarize renders a few commands compactly for the trace.
func summarize(cmds [][]string) string {
	parts := make([]string, len(cmds))
	for i, a := range cmds {
		parts[i] = strings.Join(a, " ")
	}
	return "[" + strings.Join(parts, "; ") + "]"
}
