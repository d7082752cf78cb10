package harness

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of utime/stime in /proc/<pid>/stat. It is
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// ErrProcFormat is returned when a /proc file does not parse.
var ErrProcFormat = errors.New("unexpected /proc format")

// CPUTime returns the user+system CPU time the process has used so far
// (/proc/<pid>/stat fields 14 and 15).
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("cpu time of %d: %w", pid, err)
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime+stime from a /proc/<pid>/stat line. The command
// name (field 2) may contain spaces and parentheses, so fields are counted
// from the last ')'.
func parseStatCPU(s string) (time.Duration, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("%w: no ')' in stat", ErrProcFormat)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("%w: %d fields after comm", ErrProcFormat, len(f))
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%w: utime %q stime %q", ErrProcFormat, f[11], f[12])
	}
	return time.Duration(ut+st) * time.Second / clockTicks, nil
}

// RSS returns the resident set size in bytes (/proc/<pid>/status VmRSS).
func RSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("rss of %d: %w", pid, err)
	}
	return parseStatusRSS(string(b))
}

func parseStatusRSS(s string) (int64, error) {
	for _, line := range strings.Split(s, "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("%w: VmRSS line %q", ErrProcFormat, line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: VmRSS line %q", ErrProcFormat, line)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("%w: no VmRSS line", ErrProcFormat)
}

// Usage is the CPU share and memory of a process over a window.
type Usage struct {
	CPUPercent float64 // CPU time / wall time × 100 (100 = one full core)
	RSSMiB     float64 // VmRSS at the end of the window
}

// MeasureUsage samples CPUTime at the start and end of window and RSS at
// the end. It waits for the window; it is a measurement, not a test sleep.
func MeasureUsage(pid int, window time.Duration) (Usage, error) {
	c0, err := CPUTime(pid)
	if err != nil {
		return Usage{}, err
	}
	t0 := time.Now()
	time.Sleep(window)
	c1, err := CPUTime(pid)
	if err != nil {
		return Usage{}, err
	}
	wall := time.Since(t0)
	rss, err := RSS(pid)
	if err != nil {
		return Usage{}, err
	}
	return Usage{
		CPUPercent: 100 * float64(c1-c0) / float64(wall),
		RSSMiB:     float64(rss) / (1 << 20),
	}, nil
}
