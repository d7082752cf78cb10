package resp

import "github.com/gosentinel/gosentinel/internal/redisargs"

// SplitArgs splits a line into arguments exactly like Redis' sdssplitargs,
// used for inline commands and configuration lines: arguments are separated
// by white space; "double quotes" support \n \r \t \b \a \xHH and \<char>
// escapes; 'single quotes' support only \'; a closing quote must be followed
// by white space or the end of the line. It returns an error wrapping
// ErrProtocol ("unbalanced quotes in request") when quotes do not balance.
// The rules live in internal/redisargs, shared with internal/config.
func SplitArgs(line []byte) ([][]byte, error) {
	buf, offs, err := splitArgs(line, nil, nil)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(offs))
	for i, a := range offs {
		b := len(buf)
		if i+1 < len(offs) {
			b = offs[i+1]
		}
		out[i] = buf[a:b:b]
	}
	return out, nil
}

// splitArgs appends the arguments of line to buf, recording the start
// offset of each in offs, and turns a tokenizer error into the protocol
// error Redis sends.
func splitArgs(line, buf []byte, offs []int) ([]byte, []int, error) {
	buf, offs, err := redisargs.Append(line, buf, offs)
	if err != nil {
		return buf, offs, errUnbalancedQuotes
	}
	return buf, offs, nil
}
