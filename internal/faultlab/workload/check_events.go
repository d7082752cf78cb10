package workload

import (
	"sort"
	"strconv"
	"strings"
	"time"
)

// eventFigures computes RTO_detect, RTO_switch, Failovers, FalseFailovers,
// SwitchesBy, EpochsBurned, TILTs, SDOWNFlaps, NotElected, NoGoodSlave.
func (c *checker) eventFigures() {
	fault := c.in.FaultAt
	failovers := map[string]bool{}
	unknown := map[string]bool{} // name|old|new of switches whose epoch is unknown
	byNew := map[string]bool{}   // name|new of switches whose epoch is known
	tilts := map[string]int{}
	for _, e := range c.events {
		ev := parseEvent(e)
		after := !fault.IsZero() && !e.At.Before(fault)
		switch e.Channel {
		case "+odown":
			if after && ev.kind == "master" && c.r.RTODetect < 0 {
				c.r.RTODetect = e.At.Sub(fault)
			}
		case "+switch-master":
			c.r.SwitchesBy[e.Sentinel]++
			if after && c.r.RTOSwitch < 0 {
				c.r.RTOSwitch = e.At.Sub(fault)
			}
			if ep := c.epochAfter(e.Sentinel, e.At, c.norm(ev.new)); ep >= 0 {
				failovers[ev.master+"|"+c.norm(ev.new)+"|"+strconv.FormatInt(ep, 10)] = true
				byNew[ev.master+"|"+c.norm(ev.new)] = true
			} else {
				unknown[ev.master+"|"+c.norm(ev.old)+"|"+c.norm(ev.new)] = true
			}
		case "+tilt":
			tilts[e.Sentinel]++
		case "-sdown":
			if ev.kind == "master" {
				c.r.SDOWNFlaps++
			}
		case "-failover-abort-not-elected":
			c.r.NotElected++
		case "-failover-abort-no-good-slave":
			c.r.NoGoodSlave++
		}
	}
	c.r.Failovers = len(failovers)
	for k := range unknown {
		f := strings.Split(k, "|")
		if len(f) == 3 && !byNew[f[0]+"|"+f[2]] {
			c.r.Failovers++
		}
	}
	c.r.FalseFailovers = c.r.Failovers
	if c.in.ExpectFailover && c.r.FalseFailovers > 0 {
		c.r.FalseFailovers--
	}
	// TILT entries: events, or rising edges of the sampled flag when the
	// events were missed (whichever is larger, per sentinel).
	for _, name := range c.sentinel {
		edges, was := 0, false
		for _, s := range c.samples[name] {
			if s.Err != "" {
				continue
			}
			if s.TILT && !was {
				edges++
			}
			was = s.TILT
		}
		if edges > tilts[name] {
			tilts[name] = edges
		}
	}
	for _, n := range tilts {
		c.r.TILTs += n
	}
	c.r.EpochsBurned = c.epochsBurned()
}

// epochAfter returns the config epoch sentinel reports in its first sample
// at or after t that names addr as master (within 5 s), or -1.
func (c *checker) epochAfter(sentinel string, t time.Time, addr string) int64 {
	l := c.samples[sentinel]
	i := sort.Search(len(l), func(i int) bool { return !l[i].At.Before(t) })
	for ; i < len(l) && l[i].At.Sub(t) <= 5*time.Second; i++ {
		if c.norm(l[i].MasterAddr) == addr && l[i].ConfigEpoch >= 0 {
			return l[i].ConfigEpoch
		}
	}
	return -1
}

// epochObs is one observation of a sentinel's epoch.
type epochObs struct {
	at      time.Time
	epoch   int64
	current bool   // a current epoch (hello, +new-epoch) rather than a config epoch
	stream  string // observations of one stream arrive in order (S3); "" = not checked by S3
}

// epochs returns every epoch observation per sentinel, by time.
func (c *checker) epochs() map[string][]epochObs {
	out := map[string][]epochObs{}
	for _, e := range c.in.Events {
		switch e.Channel {
		case HelloChannel:
			f := strings.Split(e.Payload, ",")
			if len(f) == 8 {
				if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
					out[e.Sentinel] = append(out[e.Sentinel], epochObs{e.At, n, true, "hello via " + e.Via})
				}
			}
		case "+new-epoch":
			if ev := parseEvent(e); ev.epoch >= 0 {
				out[e.Sentinel] = append(out[e.Sentinel], epochObs{e.At, ev.epoch, true, "+new-epoch"})
			}
		}
	}
	for _, name := range c.sentinel {
		for _, s := range c.samples[name] {
			if s.ConfigEpoch >= 0 {
				out[name] = append(out[name], epochObs{s.At, s.ConfigEpoch, false, "config-epoch"})
			}
			if s.CurrentEpoch >= 0 {
				// The latest epoch heard on any node: streams interleave,
				// so it is not checked for order (the hellos are).
				out[name] = append(out[name], epochObs{s.At, s.CurrentEpoch, true, ""})
			}
		}
	}
	for _, l := range out {
		sort.SliceStable(l, func(i, j int) bool { return l[i].at.Before(l[j].at) })
	}
	return out
}

// epochsBurned is the largest rise of one sentinel's epoch over the run:
// its highest observed epoch minus its epoch before the fault (the highest
// epoch of any kind observed before FaultAt: every one is a lower bound of
// its current epoch then), or minus its first observed current epoch when
// nothing was observed before the fault.
func (c *checker) epochsBurned() int {
	best := 0
	for _, l := range c.epochs() {
		start, first, max := int64(-1), int64(-1), int64(-1)
		for _, o := range l {
			if !c.in.FaultAt.IsZero() && o.at.Before(c.in.FaultAt) && o.epoch > start {
				start = o.epoch
			}
			if o.current && first < 0 {
				first = o.epoch
			}
			if o.epoch > max {
				max = o.epoch
			}
		}
		if start < 0 {
			start = first
		}
		if start < 0 && len(l) > 0 {
			start = l[0].epoch
		}
		if d := int(max - start); d > best {
			best = d
		}
	}
	return best
}
