package harness

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ListenOverflows returns the kernel's TcpExt ListenOverflows counter
// (/proc/net/netstat): connections dropped because a listen queue was full.
// It counts for the whole network namespace, not one process.
func ListenOverflows() (int64, error) {
	b, err := os.ReadFile("/proc/net/netstat")
	if err != nil {
		return 0, fmt.Errorf("listen overflows: %w", err)
	}
	return parseNetstat(string(b), "TcpExt:", "ListenOverflows")
}

// parseNetstat finds field in the header/value line pair starting with
// prefix (the /proc/net/netstat layout).
func parseNetstat(s, prefix, field string) (int64, error) {
	lines := strings.Split(s, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], prefix) || !strings.HasPrefix(lines[i+1], prefix) {
			continue
		}
		names := strings.Fields(lines[i])
		vals := strings.Fields(lines[i+1])
		if len(names) != len(vals) {
			return 0, fmt.Errorf("%w: %s header and values differ in length", ErrProcFormat, prefix)
		}
		for j, n := range names {
			if n == field {
				v, err := strconv.ParseInt(vals[j], 10, 64)
				if err != nil {
					return 0, fmt.Errorf("%w: %s %s = %q", ErrProcFormat, prefix, field, vals[j])
				}
				return v, nil
			}
		}
	}
	return 0, fmt.Errorf("%w: no %s %s", ErrProcFormat, prefix, field)
}
