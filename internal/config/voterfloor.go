package config

import "strconv"

// VoterFloorDirective is gosentinel's only directive of its own in
// sentinel.conf (docs/config.md "gosentinel.voter-floor"):
//
//	gosentinel.voter-floor <master> <voters> <ms-left>
//
// the voter count gosentinel's leader election keeps for <master> after a
// SENTINEL RESET, and how many milliseconds of the floor's window were
// left when the file was written: the window runs only while the sentinel
// can hear its peers, so neither the time it was down nor a wall clock
// stepped meanwhile uses it up (docs/core.md decision 33).
// The dotted name is the shape of a module configuration: redis-sentinel
// 7.0 and valkey-sentinel 8 load such a file and ignore the line (a
// sentinel loads no module), and their CONFIG REWRITE turns it into a
// "# ??? " comment, where a "sentinel voter-floor" line would make them
// refuse the file ("Unrecognized sentinel configuration statement.").
const VoterFloorDirective = "gosentinel.voter-floor"

// handleVoterFloor applies a gosentinel.voter-floor line (argv[0] is the
// directive) after the monitor lines, like a per-master sentinel option.
func (c *Config) handleVoterFloor(argv []string) string {
	if len(argv) != 4 {
		return msgBadDirective
	}
	m := c.Master(argv[1])
	if m == nil {
		return msgNoMaster
	}
	if m.VoterFloor != 0 {
		return msgFloorDup
	}
	n, err := strconv.Atoi(argv[2])
	if err != nil || n < 2 {
		return msgFloorCount
	}
	left, err := strconv.ParseInt(argv[3], 10, 64)
	if err != nil || left < 0 {
		return msgFloorLeft
	}
	m.VoterFloor, m.VoterFloorLeft = n, left
	return ""
}

// voterFloorLine is the rewrite's line for m's floor.
func voterFloorLine(m *Master) string {
	return VoterFloorDirective + " " + QuoteIfNeeded(m.Name) + " " + strconv.Itoa(m.VoterFloor) + " " +
		strconv.FormatInt(m.VoterFloorLeft, 10)
}
