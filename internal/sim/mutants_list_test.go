package sim

// mutants are the bugs TestMutants plants in the core, one at a time.
var mutants = []mutant{
	{
		Name: "vote twice in one epoch",
		File: "vote.go",
		Old:  "if ms.leaderEpoch < reqEpoch && s.currentEpoch <= reqEpoch {",
		New:  "if ms.leaderEpoch <= reqEpoch && s.currentEpoch <= reqEpoch {",
	},
	{
		Name: "reply to a vote before persisting it",
		File: "vote.go",
		Old:  "s.reveal(Respond{ID: id, Value: reply}, Respond{ID: id, Value: noVote})",
		New:  "_ = noVote\n\ts.emit(Respond{ID: id, Value: reply})",
	},
	{
		Name: "promote the highest priority",
		File: "select.go",
		Old:  "\t\treturn a.priority < b.priority\n",
		New:  "\t\treturn a.priority > b.priority\n",
	},
	{
		Name: "prefer the smaller replication offset",
		File: "select.go",
		Old:  "\t\treturn a.offset > b.offset\n",
		New:  "\t\treturn a.offset < b.offset\n",
	},
	{
		Name: "adopt a config from an equal epoch",
		File: "hello.go",
		Old:  "if si != nil && m.m.configEpoch < h.configEpoch {",
		New:  "if si != nil && m.m.configEpoch <= h.configEpoch {",
	},
	{
		Name: "one more replica in reconfiguration than parallel-syncs",
		File: "failover.go",
		Old:  "if inProgress >= ms.parallelSyncs {",
		New:  "if inProgress > ms.parallelSyncs {",
	},
	{
		Name: "fail over without ODOWN",
		File: "failover.go",
		Old:  "if m.flags&fODown == 0 || m.flags&fFailoverInProgress != 0 {",
		New:  "if m.flags&fSDown == 0 || m.flags&fFailoverInProgress != 0 {",
	},
	{
		Name: "ignore failover-timeout pacing",
		File: "failover.go",
		Old:  "if ms.failoverStartTime != 0 && s.now-ms.failoverStartTime < 2*ms.failoverTimeout {",
		New:  "if false && ms.failoverStartTime != 0 && s.now-ms.failoverStartTime < 2*ms.failoverTimeout {",
	},
}
