package workload

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// timeline walks the samples on a grid and computes SplitBrainS,
// MaxQuorumMasters (S5), L1 at the end and RTOConverged.
func (c *checker) timeline() {
	if len(c.in.Samples) == 0 {
		c.note("no samples: SplitBrain_s, S5, L1 and RTO_converged not computed")
		c.violate("L1", "no samples to check convergence")
		return
	}
	first, last := c.in.Samples[0].At, c.in.Samples[0].At
	for _, s := range c.in.Samples {
		if s.At.Before(first) {
			first = s.At
		}
		if s.At.After(last) {
			last = s.At
		}
	}
	step := c.in.Period / 5
	var lastBad time.Time
	bad := false
	for t := first; !t.After(last); t = t.Add(step) {
		if c.masters(t) >= 2 {
			c.r.SplitBrainS += step.Seconds()
		}
		if n, detail := c.quorumMasters(t); n > c.r.MaxQuorumMasters {
			c.r.MaxQuorumMasters = n
			if n > 1 {
				c.violate("S5", "at %s: %s", t.Format(time.RFC3339Nano), detail)
			}
		}
		if c.in.FaultAt.IsZero() || t.Before(c.in.FaultAt) {
			continue
		}
		if ok, _ := c.l1(t); !ok {
			bad, lastBad = true, t
		}
	}
	if ok, w := c.l1(last); !ok {
		c.violate("L1", "at the end (%s): %s", last.Format(time.RFC3339Nano), w)
		return
	}
	if c.in.FaultAt.IsZero() {
		return
	}
	switch {
	case !bad:
		c.r.RTOConverged = 0
		if first.After(c.in.FaultAt) {
			c.r.RTOConverged = first.Sub(c.in.FaultAt)
		}
	default:
		c.r.RTOConverged = lastBad.Add(step).Sub(c.in.FaultAt)
	}
}

// masters counts redis nodes that, at t, report role master and accepted
// the probe write.
func (c *checker) masters(t time.Time) int {
	n := 0
	for _, r := range c.redis {
		if s, ok := c.at(r, t); ok && s.Role == "master" && s.AcceptsWrite {
			n++
		}
	}
	return n
}

// quorumMasters counts the distinct addresses that ≥ Quorum sentinels
// report as master at t.
func (c *checker) quorumMasters(t time.Time) (int, string) {
	votes := map[string][]string{}
	for _, name := range c.sentinel {
		if s, ok := c.at(name, t); ok && s.MasterAddr != "" {
			a := c.norm(s.MasterAddr)
			votes[a] = append(votes[a], name)
		}
	}
	n := 0
	var parts []string
	for a, who := range votes {
		if len(who) >= c.in.Quorum {
			n++
		}
		parts = append(parts, fmt.Sprintf("%s by %v", a, who))
	}
	sort.Strings(parts)
	return n, strings.Join(parts, "; ")
}

// l1 reports whether L1 holds at t: every sentinel that answers names the
// same address, that node reports role master, and every other redis that
// answers replicates from it. It says why not.
func (c *checker) l1(t time.Time) (bool, string) {
	agreed := ""
	live := 0
	for _, name := range c.sentinel {
		s, ok := c.at(name, t)
		if !ok || s.MasterAddr == "" {
			continue
		}
		live++
		a := c.norm(s.MasterAddr)
		if agreed == "" {
			agreed = a
		} else if a != agreed {
			return false, fmt.Sprintf("sentinels disagree: %s says %s, another %s", name, a, agreed)
		}
	}
	if live == 0 {
		return false, "no sentinel answers"
	}
	m, ok := c.byAddr[agreed]
	if !ok {
		return false, fmt.Sprintf("the sentinels name %s, which is not a sampled redis", agreed)
	}
	if s, ok := c.at(m, t); !ok || s.Role != "master" {
		return false, fmt.Sprintf("%s (%s), named by the sentinels, does not report role master (%q)", m, agreed, s.Role)
	}
	for _, r := range c.redis {
		if r == m {
			continue
		}
		s, ok := c.at(r, t)
		if !ok {
			continue // dead or hung: not live
		}
		if s.Role != "slave" || c.norm(s.MasterOf) != agreed {
			return false, fmt.Sprintf("%s reports role %s of %q, not a replica of %s", r, s.Role, s.MasterOf, agreed)
		}
	}
	return true, ""
}
