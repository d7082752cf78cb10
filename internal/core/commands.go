package core

import (
	"strings"
)

// subcommand describes one SENTINEL subcommand: its arity (negative means
// "at least") and handler.
type subcommand struct {
	arity int
	run   func(s *Sentinel, id uint64, args []string)
}

// sentinelSubcommands is the SENTINEL command table (21 subcommands).
var sentinelSubcommands = map[string]subcommand{
	"ckquorum":                {3, (*Sentinel).cmdCkquorum},
	"config":                  {-4, (*Sentinel).cmdConfig},
	"debug":                   {-2, (*Sentinel).cmdDebug},
	"failover":                {-3, (*Sentinel).cmdFailover},
	"flushconfig":             {2, (*Sentinel).cmdFlushconfig},
	"get-master-addr-by-name": {3, (*Sentinel).cmdGetMasterAddr},
	"help":                    {2, (*Sentinel).cmdHelp},
	"info-cache":              {-3, (*Sentinel).cmdInfoCache},
	"is-master-down-by-addr":  {6, (*Sentinel).cmdIsMasterDownByAddr},
	"master":                  {3, (*Sentinel).cmdMaster},
	"masters":                 {2, (*Sentinel).cmdMasters},
	"monitor":                 {6, (*Sentinel).cmdMonitor},
	"myid":                    {2, (*Sentinel).cmdMyID},
	"pending-scripts":         {2, (*Sentinel).cmdPendingScripts},
	"remove":                  {3, (*Sentinel).cmdRemove},
	"replicas":                {3, (*Sentinel).cmdReplicas},
	"reset":                   {3, (*Sentinel).cmdReset},
	"sentinels":               {3, (*Sentinel).cmdSentinels},
	"set":                     {-5, (*Sentinel).cmdSet},
	"simulate-failure":        {-3, (*Sentinel).cmdSimulateFailure},
	"slaves":                  {3, (*Sentinel).cmdReplicas},
}

// SentinelSubcommandArities returns each SENTINEL subcommand the core
// implements with its arity in Redis' convention (N: exactly N arguments
// counting SENTINEL and the subcommand; -N: at least N). The server checks
// arities first from the command table captured from a real sentinel;
// internal/runtime TestSubcommandAritiesAgree keeps the two tables equal.
func SentinelSubcommandArities() map[string]int {
	out := make(map[string]int, len(sentinelSubcommands))
	for name, c := range sentinelSubcommands {
		out[name] = c.arity
	}
	return out
}

func (s *Sentinel) respond(id uint64, v Value) { s.emit(Respond{ID: id, Value: v}) }

// respondPersisted replies once the changes made so far are on disk; if
// the persist fails, fail is sent instead.
func (s *Sentinel) respondPersisted(id uint64, v, fail Value) {
	s.reveal(Respond{ID: id, Value: v}, Respond{ID: id, Value: fail})
}

func errWrongArgs(cmd string) Value {
	return ErrorValue("ERR wrong number of arguments for '" + cmd + "' command")
}

var errNoSuchMaster = ErrorValue("ERR No such master with that name")

// onRequest answers a client command.
func (s *Sentinel) onRequest(e Request) {
	if len(e.Args) == 0 {
		s.respond(e.ID, ErrorValue("ERR empty command"))
		return
	}
	switch strings.ToLower(e.Args[0]) {
	case "sentinel":
		s.cmdSentinel(e.ID, e.Args)
	case "role":
		if len(e.Args) != 1 {
			s.respond(e.ID, errWrongArgs("role"))
			return
		}
		names := []Value{}
		for _, m := range s.sortedMasters() {
			names = append(names, Bulk(m.name))
		}
		s.respond(e.ID, Array(Bulk("sentinel"), Array(names...)))
	case "publish":
		s.cmdPublish(e.ID, e.Args)
	default:
		s.respond(e.ID, ErrorValue("ERR unknown command '"+e.Args[0]+"'"))
	}
}

func (s *Sentinel) cmdSentinel(id uint64, args []string) {
	if len(args) < 2 {
		s.respond(id, errWrongArgs("sentinel"))
		return
	}
	sub := strings.ToLower(args[1])
	c, ok := sentinelSubcommands[sub]
	if !ok {
		s.respond(id, ErrorValue("ERR unknown subcommand '"+truncate(args[1], 128)+"'. Try SENTINEL HELP."))
		return
	}
	if (c.arity > 0 && len(args) != c.arity) || (c.arity < 0 && len(args) < -c.arity) {
		s.respond(id, errWrongArgs("sentinel|"+sub))
		return
	}
	c.run(s, id, args)
}

func truncate(str string, n int) string {
	if len(str) > n {
		return str[:n]
	}
	return str
}

// cmdPublish is sentinelPublishCommand: only hello messages are accepted.
func (s *Sentinel) cmdPublish(id uint64, args []string) {
	if len(args) != 3 {
		s.respond(id, errWrongArgs("publish"))
		return
	}
	if args[1] != HelloChannel {
		s.respond(id, ErrorValue("ERR Only HELLO messages are accepted by Sentinel instances."))
		return
	}
	s.processHello(args[2], false)
	s.respond(id, Int(1))
}

// masterOrErr looks a master up by name, replying the error if unknown.
func (s *Sentinel) masterOrErr(id uint64, name string) *instance {
	m, ok := s.masters[name]
	if !ok {
		s.respond(id, errNoSuchMaster)
		return nil
	}
	return m
}
