package server

import (
	"strings"
	"sync"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// aclLogGroupWindow is ACL_LOG_GROUPING_MAX_TIME_DELTA: a denial equal to
// a recent entry (same reason, context, object and user) within this
// time bumps that entry's count instead of adding one.
const aclLogGroupWindow = 60 * time.Second

// aclLogScan is how many recent entries are looked at for grouping.
const aclLogScan = 10

// aclLogEntry is one ACL LOG entry.
type aclLogEntry struct {
	count    int64
	reason   string // command, key, channel or auth
	context  string // toplevel (a sentinel has no MULTI, Lua or modules)
	object   string
	username string
	cinfo    string    // CLIENT INFO line of the denied client, last occurrence
	created  time.Time // first occurrence
	updated  time.Time // last occurrence (age-seconds counts from it)
	id       int64
}

// aclLog is the ACL LOG list, newest first, bounded by acllog-max-len.
type aclLog struct {
	mu      sync.Mutex
	entries []*aclLogEntry
	nextID  int64
}

// add records a denial like Redis' addACLLogEntry.
func (l *aclLog) add(e aclLogEntry, maxLen int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := 0; i < len(l.entries) && i < aclLogScan; i++ {
		m := l.entries[i]
		d := e.updated.Sub(m.updated)
		if d < 0 {
			d = -d
		}
		if m.reason != e.reason || m.context != e.context || d > aclLogGroupWindow ||
			m.object != e.object || m.username != e.username {
			continue
		}
		copy(l.entries[1:i+1], l.entries[:i])
		l.entries[0] = m
		m.cinfo, m.updated = e.cinfo, e.updated
		m.count++
		return
	}
	e.count, e.id, e.created = 1, l.nextID, e.updated
	l.nextID++
	l.entries = append(l.entries, nil)
	copy(l.entries[1:], l.entries)
	l.entries[0] = &e
	for i := maxLen; i < len(l.entries); i++ {
		l.entries[i] = nil
	}
	if len(l.entries) > maxLen {
		l.entries = l.entries[:maxLen]
	}
}

// aclLogDenied logs a command or channel refused by the ACL; object is
// the command's full name or the channel.
func (s *Server) aclLogDenied(c *client, reason, object, user string) {
	s.aclLog.add(aclLogEntry{
		reason: reason, context: "toplevel", object: object, username: user,
		cinfo: c.describe(), updated: s.cfg.now(),
	}, s.cfg.ACLLogMaxLen)
}

// aclLogAuthFailure logs a refused AUTH or HELLO AUTH: the object is the
// command name as the client typed it, the user the one it tried.
func (s *Server) aclLogAuthFailure(c *client, cmdName, user string) {
	s.aclLog.add(aclLogEntry{
		reason: "auth", context: "toplevel", object: cmdName, username: user,
		cinfo: c.describe(), updated: s.cfg.now(),
	}, s.cfg.ACLLogMaxLen)
}

// aclLogCommand: ACL LOG [<count> | RESET]. Entries are maps with Redis
// 7.0's seven fields followed by 7.2's entry-id, timestamp-created and
// timestamp-last-updated (docs/compatibility.md: newest form).
func aclLogCommand(c *client, args [][]byte) {
	if len(args) > 3 {
		c.addError("ERR unknown subcommand or wrong number of arguments for '" + trunc(string(args[1]), 128) +
			"'. Try " + strings.ToUpper(string(args[0])) + " HELP.")
		return
	}
	l := &c.s.aclLog
	count := int64(10)
	if len(args) == 3 {
		if strings.EqualFold(string(args[2]), "reset") {
			l.mu.Lock()
			l.entries = nil
			l.mu.Unlock()
			c.addReply([]byte("+OK\r\n"))
			return
		}
		n, ok := parseInt(string(args[2]))
		if !ok {
			c.addError("ERR value is not an integer or out of range")
			return
		}
		count = max(n, 0)
	}
	now := c.s.cfg.now()
	l.mu.Lock()
	n := min(int(min(count, int64(len(l.entries)))), len(l.entries))
	out := make([]resp.Value, n)
	for i, e := range l.entries[:n] {
		out[i] = resp.Map(
			resp.Bulk("count"), resp.Integer(e.count),
			resp.Bulk("reason"), resp.Bulk(e.reason),
			resp.Bulk("context"), resp.Bulk(e.context),
			resp.Bulk("object"), resp.Bulk(e.object),
			resp.Bulk("username"), resp.Bulk(e.username),
			resp.Bulk("age-seconds"), resp.Double(float64(now.Sub(e.updated).Milliseconds())/1000),
			resp.Bulk("client-info"), resp.Bulk(e.cinfo),
			resp.Bulk("entry-id"), resp.Integer(e.id),
			resp.Bulk("timestamp-created"), resp.Integer(e.created.UnixMilli()),
			resp.Bulk("timestamp-last-updated"), resp.Integer(e.updated.UnixMilli()),
		)
	}
	l.mu.Unlock()
	c.addValue(resp.Array(out...))
}
