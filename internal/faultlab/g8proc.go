package faultlab

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// procNoFile is the soft "Max open files" of pid (/proc/PID/limits).
func procNoFile(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		return 0, err
	}
	return parseNoFile(string(data))
}

func parseNoFile(limits string) (int64, error) {
	for _, l := range strings.Split(limits, "\n") {
		if rest, ok := strings.CutPrefix(l, "Max open files"); ok {
			f := strings.Fields(rest)
			if len(f) < 2 {
				break
			}
			if f[0] == "unlimited" {
				return -1, nil
			}
			return strconv.ParseInt(f[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("no Max open files line")
}

// procStatusKB is a "kB" field of /proc/PID/status (VmRSS, VmHWM).
func procStatusKB(pid int, key string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseStatusKB(string(data), key)
}

func parseStatusKB(status, key string) (int64, error) {
	for _, l := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(l, key+":"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				break
			}
			return strconv.ParseInt(f[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in status", key)
}

// cpuFigures: the peak CPU over any window of ≥ 1 s between from and to
// (% of one core) and the CPU seconds used between them, from cumulative
// clock ticks sampled at the times at.
func cpuFigures(at []time.Time, ticks []int64, from, to time.Time) (peak, total float64) {
	lo, hi := -1, -1
	for i, t := range at {
		if lo < 0 && !t.Before(from) {
			lo = i
		}
		if !t.After(to) {
			hi = i
		}
	}
	if lo < 0 || hi <= lo {
		return 0, 0
	}
	total = float64(ticks[hi]-ticks[lo]) / clockTicks
	for i := lo; i <= hi; i++ {
		j := i
		for j <= hi && at[j].Sub(at[i]) < time.Second {
			j++
		}
		if j > hi {
			break
		}
		pct := float64(ticks[j]-ticks[i]) / clockTicks / at[j].Sub(at[i]).Seconds() * 100
		peak = max(peak, pct)
	}
	return float64(int(peak*10)) / 10, float64(int(total*100)) / 100
}
