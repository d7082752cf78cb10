package runner

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

const harnessDefaultWindow = 30 * time.Second

// parseInts parses "1,2,3" into positive ints.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%w: %q is not a positive integer", ErrBadFlag, f)
		}
		out = append(out, n)
	}
	return out, nil
}

func intsSetter(dst *[]int) func(string) error {
	return func(s string) error {
		v, err := parseInts(s)
		if err != nil {
			return err
		}
		*dst = v
		return nil
	}
}
