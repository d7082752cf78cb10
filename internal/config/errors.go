package config

import (
	"errors"
	"fmt"
)

// ErrConfig is matched by every *ConfigError with errors.Is, so callers can
// tell "the file is invalid" from I/O errors.
var ErrConfig = errors.New("invalid configuration")

// ErrNoSuchMaster is the cause of a ConfigError for a per-master sentinel
// directive naming a master that no "sentinel monitor" line declares.
var ErrNoSuchMaster = errors.New("No such master with specified name.")

// ConfigError reports an invalid directive: the file, the 1-based line of the
// offending directive, the text of that line and the message real Redis
// prints for it.
type ConfigError struct {
	File string // file name as given to Load or Parse
	Line int    // 1-based line number
	Text string // the offending line, trimmed
	Msg  string // Redis' message, e.g. "Quorum must be 1 or greater."
	err  error  // optional sentinel cause
}

// Error formats the error as FILE:LINE: message.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Is makes errors.Is(err, ErrConfig) true for every ConfigError, and true for
// the specific cause (ErrNoSuchMaster, ErrUnbalancedQuotes) when there is one.
func (e *ConfigError) Is(target error) bool {
	return target == ErrConfig || (e.err != nil && target == e.err)
}

// Sentinel's messages (sentinelHandleConfiguration and config.c), kept as
// constants so tests and callers compare against one spelling.
const (
	msgBadDirective     = "Bad directive or wrong number of arguments"
	msgWrongArgs        = "wrong number of arguments"
	msgUnrecognized     = "Unrecognized sentinel configuration statement."
	msgQuorum           = "Quorum must be 1 or greater."
	msgDupMaster        = "Duplicate master name."
	msgDupReplica       = "Duplicate hostname and port for replica."
	msgDupSentinel      = "Duplicate runid for sentinel."
	msgResolve          = "Can't resolve instance hostname."
	msgBadPort          = "Invalid port number."
	msgMyID             = "Malformed Sentinel id in myid option."
	msgRenameTwice      = "Same command renamed multiple times with rename-command."
	msgNoMaster         = "No such master with specified name."
	msgZeroTime         = "negative or zero time parameter."
	msgNegTime          = "negative time parameter."
	msgNotifScript      = "Notification script seems non existing or non executable."
	msgReconfScript     = "Client reconfiguration script seems non existing or non executable."
	msgDenyYesNo        = "Please specify yes or no for the deny-scripts-reconfig options."
	msgResolveYesNo     = "Please specify yes or no for the resolve-hostnames option."
	msgAnnounceYesNo    = "Please specify yes or no for the announce-hostnames option."
	msgNoSuchCommand    = "No such command in rename-command"
	msgTargetExists     = "Target command name already exists"
	msgModuleNoValue    = "Module config specified without value"
	msgNotInt           = "argument couldn't be parsed into an integer"
	msgYesNo            = "argument must be 'yes' or 'no'"
	msgNotMemory        = "argument must be a memory value"
	msgUnbalancedQuotes = "Unbalanced quotes in configuration line"

	// gosentinel's own (gosentinel.voter-floor, voterfloor.go).
	msgFloorCount = "Voter floor count must be an integer of 2 or more."
	msgFloorLeft  = "Voter floor time left must be a number of milliseconds."
	msgFloorDup   = "Duplicate voter floor for master."
)
