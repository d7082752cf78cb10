package resp

// Default limits; they follow redis-server 7.0 where Redis has one.
const (
	// DefaultMaxBulkLen is Redis' proto-max-bulk-len (512 MiB).
	DefaultMaxBulkLen = 512 << 20
	// DefaultMaxArgs caps the number of arguments of one command. Redis only
	// refuses counts above INT_MAX; a lower cap costs nothing for Sentinel,
	// whose longest command has a handful of arguments.
	DefaultMaxArgs = 1 << 20
	// DefaultMaxInlineLen is Redis' PROTO_INLINE_MAX_SIZE (64 KiB); it also
	// bounds every RESP header line ("*3", "$5", ":12", "+OK" ...).
	DefaultMaxInlineLen = 64 << 10
	// DefaultUnauthMaxArgs is the multibulk count above which Redis refuses
	// a command from a client that still has to authenticate.
	DefaultUnauthMaxArgs = 10
	// DefaultUnauthMaxBulkLen is the bulk length above which Redis refuses a
	// bulk from a client that still has to authenticate.
	DefaultUnauthMaxBulkLen = 16384
	// DefaultMaxArrayLen caps the element count of one aggregate reply.
	DefaultMaxArrayLen = 1 << 24
	// DefaultMaxDepth caps the nesting of aggregate replies.
	DefaultMaxDepth = 64
)

// Limits bound what a [Reader] accepts. A zero field means "use the default".
type Limits struct {
	// MaxBulkLen is the largest bulk string accepted (command argument or reply).
	MaxBulkLen int64
	// MaxArgs is the largest multibulk count of a command.
	MaxArgs int64
	// MaxInlineLen is the longest inline command or RESP header line.
	MaxInlineLen int
	// UnauthMaxArgs replaces MaxArgs while the reader is unauthenticated.
	UnauthMaxArgs int64
	// UnauthMaxBulkLen replaces MaxBulkLen while the reader is unauthenticated.
	UnauthMaxBulkLen int64
	// MaxArrayLen is the largest aggregate accepted by ReadValue.
	MaxArrayLen int64
	// MaxDepth is the deepest nesting of aggregates accepted by ReadValue.
	MaxDepth int
}

// DefaultLimits returns the limits used when none are given.
func DefaultLimits() Limits {
	return Limits{
		MaxBulkLen:       DefaultMaxBulkLen,
		MaxArgs:          DefaultMaxArgs,
		MaxInlineLen:     DefaultMaxInlineLen,
		UnauthMaxArgs:    DefaultUnauthMaxArgs,
		UnauthMaxBulkLen: DefaultUnauthMaxBulkLen,
		MaxArrayLen:      DefaultMaxArrayLen,
		MaxDepth:         DefaultMaxDepth,
	}
}

// withDefaults fills zero (or negative) fields from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	orDefault(&l.MaxBulkLen, d.MaxBulkLen)
	orDefault(&l.MaxArgs, d.MaxArgs)
	orDefault(&l.MaxInlineLen, d.MaxInlineLen)
	orDefault(&l.UnauthMaxArgs, d.UnauthMaxArgs)
	orDefault(&l.UnauthMaxBulkLen, d.UnauthMaxBulkLen)
	orDefault(&l.MaxArrayLen, d.MaxArrayLen)
	orDefault(&l.MaxDepth, d.MaxDepth)
	return l
}

// orDefault sets *v to d when *v is not positive.
func orDefault[T int | int64](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}
