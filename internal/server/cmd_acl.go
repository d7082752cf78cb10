package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/gosentinel/gosentinel/internal/resp"
)

var aclHelp = []string{
	"ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CAT [<category>]",
	"    List all commands that belong to <category>, or all command categories",
	"    when no category is specified.",
	"DELUSER <username> [<username> ...]",
	"    Delete a list of users.",
	"DRYRUN <username> <command> [<arg> ...]",
	"    Returns whether the user can execute the given command without executing the command.",
	"GETUSER <username>",
	"    Get the user's details.",
	"GENPASS [<bits>]",
	"    Generate a secure 256-bit user password. The optional `bits` argument can",
	"    be used to specify a different size.",
	"LIST",
	"    Show users details in config file format.",
	"LOAD",
	"    Reload users from the ACL file.",
	"LOG [<count> | RESET]",
	"    Show the ACL log entries.",
	"SAVE",
	"    Save the current config to the ACL file.",
	"SETUSER <username> <attribute> [<attribute> ...]",
	"    Create or modify a user with the specified attributes.",
	"USERS",
	"    List all the registered usernames.",
	"WHOAMI",
	"    Return the current connection username.",
	"HELP",
	"    Prints this help.",
}

const errNoACLFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."

func cmdACL(c *client, cmd *command, args [][]byte) {
	dispatchSubcommand(c, cmd, args, aclSubcommands)
}

// aclSubcommands handles each ACL subcommand (arity is checked by the
// command table before; TestACLSubcommandsHandled keeps the two in step).
var aclSubcommands = map[string]func(c *client, args [][]byte){
	"setuser": aclSetUser,
	"deluser": aclDelUser,
	"getuser": aclGetUser,
	"list":    aclList,
	"users":   aclUsers,
	"whoami":  aclWhoami,
	"cat":     aclCat,
	"genpass": aclGenpass,
	"log":     aclLogCommand,
	"save":    func(c *client, _ [][]byte) { aclFileCommand(c, "acl|save") },
	"load":    func(c *client, _ [][]byte) { aclFileCommand(c, "acl|load") },
	"dryrun":  aclDryRun,
	"help":    func(c *client, _ [][]byte) { c.addReply(helpReply(aclHelp)) },
}

// aclSetUser: ACL SETUSER username [rule ...].
func aclSetUser(c *client, args [][]byte) {
	rules := make([]string, len(args)-3)
	for i, r := range args[3:] {
		rules[i] = string(r)
	}
	if bad, err := c.s.acl.setUser(string(args[2]), rules); err != nil {
		var up *UnmatchedParenError
		if errors.As(err, &up) {
			c.addError("ERR " + err.Error())
			return
		}
		c.addError("ERR Error in ACL SETUSER modifier '" + bad + "': " + err.Error())
		return
	}
	c.s.killRevokedSubscribers(c, string(args[2]))
	c.addReply([]byte("+OK\r\n"))
}

// aclDelUser: ACL DELUSER username [username ...]; the default user
// cannot be deleted, and nothing is deleted if it is named.
func aclDelUser(c *client, args [][]byte) {
	a := c.s.acl
	for _, n := range args[2:] {
		if string(n) == "default" {
			c.addError("ERR " + errACLDefaultDelete.Error())
			return
		}
	}
	var gone []string
	a.mu.Lock()
	for _, n := range args[2:] {
		name := string(n)
		if _, ok := a.users[name]; ok {
			delete(a.users, name)
			gone = append(gone, name)
		}
	}
	a.mu.Unlock()
	c.s.disconnectUsers(c, gone)
	c.addReply(resp.AppendInt(nil, int64(len(gone))))
}

// aclGetUser: ACL GETUSER username, the map Redis 7 returns (nil if the
// user does not exist).
func aclGetUser(c *client, args [][]byte) {
	a := c.s.acl
	a.mu.RLock()
	u := a.users[string(args[2])]
	var v resp.Value
	if u == nil {
		v = resp.NullBulk()
	} else {
		flags := make([]resp.Value, 0, 2)
		for _, f := range u.flags() {
			flags = append(flags, resp.Bulk(f))
		}
		sels := make([]resp.Value, len(u.selectors))
		for i, s := range u.selectors {
			sels[i] = resp.Map(s.getuserFields()...)
		}
		fields := []resp.Value{
			resp.Bulk("flags"), resp.Set(flags...),
			resp.Bulk("passwords"), resp.BulkArray(u.passwords...),
		}
		fields = append(fields, u.selector.getuserFields()...)
		fields = append(fields, resp.Bulk("selectors"), resp.Array(sels...))
		v = resp.Map(fields...)
	}
	a.mu.RUnlock()
	c.addValue(v)
}

// aclList: ACL LIST, every user in config-file form, sorted by name.
func aclList(c *client, _ [][]byte) {
	a := c.s.acl
	a.mu.RLock()
	var lines []string
	for _, n := range sortedUsers(a) {
		lines = append(lines, a.users[n].describe())
	}
	a.mu.RUnlock()
	c.addValue(resp.BulkArray(lines...))
}

// aclUsers: ACL USERS, the sorted user names.
func aclUsers(c *client, _ [][]byte) {
	a := c.s.acl
	a.mu.RLock()
	names := sortedUsers(a)
	a.mu.RUnlock()
	c.addValue(resp.BulkArray(names...))
}

// aclWhoami: ACL WHOAMI, the connection's user.
func aclWhoami(c *client, _ [][]byte) {
	c.mu.Lock()
	u := c.user
	c.mu.Unlock()
	c.addReply(resp.AppendBulkString(nil, u))
}

// aclCat: ACL CAT [category], the categories or the commands of one.
func aclCat(c *client, args [][]byte) {
	if len(args) == 2 {
		c.addValue(resp.BulkArray(c.s.tab.cats...))
		return
	}
	cat := strings.ToLower(string(args[2]))
	if !slices.Contains(c.s.tab.cats, cat) {
		c.addError("ERR Unknown category '" + string(args[2]) + "'")
		return
	}
	var names []string
	for _, x := range c.s.tab.all {
		if x.hasCategory(cat) {
			names = append(names, x.name)
		}
	}
	c.addValue(resp.BulkArray(names...))
}

// aclGenpass: ACL GENPASS [bits], a random hex password (256 bits by
// default, at most 4096).
func aclGenpass(c *client, args [][]byte) {
	bits := int64(256)
	if len(args) == 3 {
		n, ok := parseInt(string(args[2]))
		if !ok {
			c.addError("ERR value is not an integer or out of range")
			return
		}
		if n <= 0 || n > 4096 {
			c.addError("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
			return
		}
		bits = n
	}
	chars := int((bits + 3) / 4)
	buf := make([]byte, (chars+1)/2)
	_, _ = rand.Read(buf)
	c.addReply(resp.AppendBulkString(nil, hex.EncodeToString(buf)[:chars]))
}

// aclDryRun: ACL DRYRUN user command [args...].
func aclDryRun(c *client, args [][]byte) {
	a := c.s.acl
	name := string(args[2])
	a.mu.RLock()
	_, ok := a.users[name]
	a.mu.RUnlock()
	if !ok {
		c.addError("ERR User '" + name + "' not found")
		return
	}
	target, errMsg, _ := c.s.resolve(args[3:], nil)
	if target == nil {
		if strings.HasPrefix(errMsg, "ERR wrong number") {
			c.addError("ERR " + errMsg[len("ERR "):])
			return
		}
		c.addError("ERR Command '" + string(args[3]) + "' not found")
		return
	}
	a.mu.RLock()
	res, idx := checkUser(a.users[name], target, args[3:])
	a.mu.RUnlock()
	switch res {
	case aclDeniedCmd:
		c.addReply(resp.AppendBulkString(nil, "This user has no permissions to run the '"+target.name+"' command"))
		return
	case aclDeniedChannel:
		c.addReply(resp.AppendBulkString(nil, "This user has no permissions to access the '"+string(args[3+idx])+"' channel"))
		return
	}
	c.addReply([]byte("+OK\r\n"))
}

func sortedUsers(a *acl) []string {
	names := make([]string, 0, len(a.users))
	for n := range a.users {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// disconnectUsers closes the connections authenticated as deleted users
// (the caller's own connection after its reply).
func (s *Server) disconnectUsers(self *client, users []string) {
	if len(users) == 0 {
		return
	}
	for _, o := range s.clientList() {
		o.mu.Lock()
		u := o.user
		o.mu.Unlock()
		if !slices.Contains(users, u) {
			continue
		}
		if o == self {
			self.closeNext = true
			continue
		}
		o.kill()
	}
}

// killRevokedSubscribers disconnects clients of user whose subscriptions
// are no longer permitted by any of its selectors, like Redis'
// ACLKillPubsubClientsIfNeeded.
func (s *Server) killRevokedSubscribers(self *client, user string) {
	for _, o := range s.clientList() {
		o.mu.Lock()
		u := o.user
		chans := slices.Clone(o.channels)
		pats := slices.Clone(o.patterns)
		o.mu.Unlock()
		if u != user || len(chans)+len(pats) == 0 {
			continue
		}
		if s.acl.subscriptionsAllowed(user, chans, pats) {
			continue
		}
		if o == self {
			self.closeNext = true
			continue
		}
		o.kill()
	}
}

// getuserFields are the commands, keys and channels of a selector as ACL
// GETUSER shows them (aclAddReplySelectorDescription).
func (s *selector) getuserFields() []resp.Value {
	return []resp.Value{
		resp.Bulk("commands"), resp.Bulk(s.commandsString()),
		resp.Bulk("keys"), resp.Bulk(s.keysString()),
		resp.Bulk("channels"), resp.Bulk(s.channelsString()),
	}
}
