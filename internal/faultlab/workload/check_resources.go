package workload

import (
	"sort"
	"strconv"
	"time"
)

// ResourceLimits bounds the growth R1 tolerates: the least-squares slope
// over the second half of a process's readings (the first half is warm-up:
// connections, buffers, replication backlog).
type ResourceLimits struct {
	MinSpan       time.Duration // shorter series are not judged (default 60 s)
	RSSKBPerMin   float64       // default 1024 (1 MiB/min)
	FDsPerMin     float64       // default 5
	ThreadsPerMin float64       // default 5
}

func (l ResourceLimits) withDefaults() ResourceLimits {
	if l.MinSpan <= 0 {
		l.MinSpan = time.Minute
	}
	if l.RSSKBPerMin <= 0 {
		l.RSSKBPerMin = 1024
	}
	if l.FDsPerMin <= 0 {
		l.FDsPerMin = 5
	}
	if l.ThreadsPerMin <= 0 {
		l.ThreadsPerMin = 5
	}
	return l
}

// r1Resources flags processes whose RSS, descriptors or threads keep
// growing (R1). One series is one (process, PID): a restart starts anew.
func (c *checker) r1Resources() {
	lim := c.in.ResourceLimits.withDefaults()
	series := map[string][]ResourceSample{}
	var keys []string
	for _, s := range c.in.Resources {
		k := s.Process + " pid " + strconv.Itoa(s.PID)
		if series[k] == nil {
			keys = append(keys, k)
		}
		series[k] = append(series[k], s)
	}
	sort.Strings(keys)
	for _, k := range keys {
		l := series[k]
		sort.SliceStable(l, func(i, j int) bool { return l[i].At.Before(l[j].At) })
		if len(l) < 10 || l[len(l)-1].At.Sub(l[0].At) < lim.MinSpan {
			continue
		}
		half := l[len(l)/2:]
		check := func(what string, limit float64, v func(ResourceSample) float64) {
			if s := slopePerMin(half, v); s > limit {
				c.violate("R1", "%s: %s grows %.1f/min over the second half of the run (limit %.1f): %.0f → %.0f",
					k, what, s, limit, v(half[0]), v(half[len(half)-1]))
			}
		}
		check("RSS KB", lim.RSSKBPerMin, func(s ResourceSample) float64 { return float64(s.RSSKB) })
		check("descriptors", lim.FDsPerMin, func(s ResourceSample) float64 { return float64(s.FDs) })
		check("threads", lim.ThreadsPerMin, func(s ResourceSample) float64 { return float64(s.Threads) })
	}
}

// slopePerMin is the least-squares slope of v over time, per minute.
func slopePerMin(l []ResourceSample, v func(ResourceSample) float64) float64 {
	if len(l) < 2 {
		return 0
	}
	t0 := l[0].At
	var sx, sy, sxx, sxy float64
	for _, s := range l {
		x := s.At.Sub(t0).Minutes()
		y := v(s)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	n := float64(len(l))
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
