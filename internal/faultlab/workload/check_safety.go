package workload

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/config"
)

// s1: at most one +elected-leader per (master, epoch) across sentinels.
// Real Sentinel publishes +elected-leader on the leader only; its epoch is
// the leader's latest +new-epoch before it (the failover's ++current_epoch)
// unless the subscription to it broke since (a +new-epoch may have been
// missed), else its sampled leader-epoch (its vote for itself).
func (c *checker) s1() {
	lastEpoch := map[string]int64{}
	leaders := map[string]map[string]time.Time{} // master|epoch → sentinel → when
	var keys []string
	for _, e := range c.eventsWithGaps() {
		switch e.Channel {
		case ChanDisconnected:
			delete(lastEpoch, e.Sentinel)
		case "+new-epoch":
			if ev := parseEvent(e); ev.epoch >= 0 {
				lastEpoch[e.Sentinel] = ev.epoch
			}
		case "+elected-leader":
			ev := parseEvent(e)
			ep, ok := lastEpoch[e.Sentinel]
			if !ok {
				ep = c.leaderEpochAt(e.Sentinel, e.At)
			}
			if ep < 0 {
				c.note("S1: epoch of +elected-leader from %s at %s unknown", e.Sentinel, e.At.Format(time.RFC3339Nano))
				continue
			}
			k := ev.master + " epoch " + itoa64(ep)
			if leaders[k] == nil {
				leaders[k] = map[string]time.Time{}
				keys = append(keys, k)
			}
			if _, seen := leaders[k][e.Sentinel]; !seen {
				leaders[k][e.Sentinel] = e.At
			}
		}
	}
	for _, k := range keys {
		if len(leaders[k]) > 1 {
			c.violate("S1", "%s: %d leaders elected: %s", k, len(leaders[k]), names(leaders[k]))
		}
	}
}

// eventsWithGaps is c.events plus the sampler's disconnection markers of
// the sentinels' event subscriptions, by time.
func (c *checker) eventsWithGaps() []Event {
	out := append([]Event(nil), c.events...)
	for _, e := range c.in.Events {
		if e.Channel == ChanDisconnected && c.kinds[e.Sentinel] == KindSentinel {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// leaderEpochAt returns the leader-epoch a sentinel reports in its first
// sample after t (within 5 s), or -1.
func (c *checker) leaderEpochAt(sentinel string, t time.Time) int64 {
	l := c.samples[sentinel]
	i := sort.Search(len(l), func(i int) bool { return !l[i].At.Before(t) })
	for ; i < len(l) && l[i].At.Sub(t) <= 5*time.Second; i++ {
		if l[i].LeaderEpoch >= 0 {
			return l[i].LeaderEpoch
		}
	}
	return -1
}

// s2: no two sentinels ever report the same config epoch with different
// master addresses.
func (c *checker) s2() {
	type first struct {
		sentinel string
		at       time.Time
	}
	seen := map[int64]map[string]first{}
	reported := map[string]bool{}
	for _, name := range c.sentinel {
		for _, s := range c.samples[name] {
			if s.ConfigEpoch < 0 || s.MasterAddr == "" || s.Err != "" {
				continue
			}
			a := c.norm(s.MasterAddr)
			m := seen[s.ConfigEpoch]
			if m == nil {
				m = map[string]first{}
				seen[s.ConfigEpoch] = m
			}
			if _, ok := m[a]; !ok {
				m[a] = first{name, s.At}
			}
		}
	}
	epochs := make([]int64, 0, len(seen))
	for e := range seen {
		epochs = append(epochs, e)
	}
	sort.Slice(epochs, func(i, j int) bool { return epochs[i] < epochs[j] })
	for _, e := range epochs {
		m := seen[e]
		if len(m) < 2 {
			continue
		}
		who := map[string]bool{}
		var parts []string
		for a, f := range m {
			who[f.sentinel] = true
			parts = append(parts, a+" ("+f.sentinel+" at "+f.at.Format(time.RFC3339Nano)+")")
		}
		sort.Strings(parts)
		k := itoa64(e)
		if len(who) > 1 && !reported[k] {
			reported[k] = true
			c.violate("S2", "config-epoch %d names %d addresses: %s", e, len(m), strings.Join(parts, ", "))
		}
	}
}

// s3: a sentinel's current epoch and config epoch never decrease,
// including across restarts (§3.3). Judged per sentinel on the sources
// whose order is the sentinel's own order: its sampled config-epoch
// (SENTINEL MASTER, one request at a time), its +new-epoch events, and the
// current-epoch and config-epoch of its config file on disk (the state a
// restart comes back with). A sentinel in EpochResets may go back once in
// each of these streams (its restart from an old config shows in all).
//
// Hellos are judged separately (s3Hellos): their arrival order is not the
// sender's order.
func (c *checker) s3() {
	reset := map[string]bool{}
	for _, n := range c.in.EpochResets {
		reset[n] = true
	}
	used := map[string]bool{} // sentinel|stream whose one allowed drop is spent
	obs := c.epochs()
	for name, l := range c.diskEpochs() {
		obs[name] = append(obs[name], l...)
		sort.SliceStable(obs[name], func(i, j int) bool { return obs[name][i].at.Before(obs[name][j].at) })
	}
	sentinels := make([]string, 0, len(obs))
	for n := range obs {
		sentinels = append(sentinels, n)
	}
	sort.Strings(sentinels)
	for _, name := range sentinels {
		last := map[string]epochObs{}
		for _, o := range obs[name] {
			if o.stream == "" || strings.HasPrefix(o.stream, "hello via ") {
				continue
			}
			p, ok := last[o.stream]
			last[o.stream] = o
			if !ok || o.epoch >= p.epoch {
				continue
			}
			if k := name + "|" + o.stream; reset[name] && !used[k] {
				used[k] = true
				continue
			}
			c.violate("S3", "%s: %s went from %d (%s) to %d (%s)", name, o.stream, p.epoch,
				p.at.Format(time.RFC3339Nano), o.epoch, o.at.Format(time.RFC3339Nano))
		}
	}
	c.s3Hellos()
}

// diskEpochs returns, per sentinel, the current-epoch and each master's
// config-epoch of its config file copies (ConfigHistory, in the order they
// were taken; files that do not load are L2's business).
func (c *checker) diskEpochs() map[string][]epochObs {
	out := map[string][]epochObs{}
	for _, f := range c.in.ConfigHistory {
		cfg, err := config.Parse(bytes.NewReader(f.Data), f.Sentinel)
		if err != nil {
			continue
		}
		out[f.Sentinel] = append(out[f.Sentinel], epochObs{f.At, int64(cfg.Sentinel.CurrentEpoch), true, "current-epoch on disk"})
		for _, m := range cfg.Sentinel.Masters {
			if c.in.MasterName != "" && m.Name != c.in.MasterName {
				continue
			}
			out[f.Sentinel] = append(out[f.Sentinel], epochObs{f.At, int64(m.ConfigEpoch), false, "config-epoch of " + m.Name + " on disk"})
		}
	}
	return out
}

// s3Hellos: a hello carries its sender's current epoch and the config
// epoch of the master it names, but the order in which hellos arrive is
// not the order in which they were sent: a sentinel publishes on one
// connection per node and reconnects (an old connection's hellos can be
// delivered after a heal, behind newer ones), and a PUBLISH to a master is
// also propagated to its replicas, so one hello reaches a replica's
// channel by two paths with different delays. The sender's config epoch
// orders its hellos: one naming config epoch c2 was sent after every
// hello naming a lower c1 (a config epoch never decreases, which the
// sender's own streams check above). So a hello is a decrease when its
// current epoch is lower than that of a hello the sender sent earlier in
// its config-epoch order; hellos of one config epoch are not ordered
// against each other (a decrease there shows on disk).
func (c *checker) s3Hellos() {
	type key struct{ sender, master string }
	type seen struct {
		epoch int64
		at    time.Time
	}
	best := map[key]map[int64]seen{} // config epoch → highest current epoch heard with it
	reported := map[key]bool{}
	for _, e := range c.in.Events {
		if e.Channel != HelloChannel {
			continue
		}
		f := strings.Split(e.Payload, ",")
		if len(f) != 8 {
			continue
		}
		cur, err1 := strconv.ParseInt(f[3], 10, 64)
		conf, err2 := strconv.ParseInt(f[7], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		k := key{e.Sentinel, f[4]}
		m := best[k]
		if m == nil {
			m = map[int64]seen{}
			best[k] = m
		}
		for c1, s := range m {
			if c1 < conf && s.epoch > cur && !reported[k] {
				reported[k] = true
				c.violate("S3", "%s: hello with config-epoch %d of %s carried current epoch %d (via %s at %s), after a hello with the older config-epoch %d carried %d (at %s)",
					k.sender, conf, k.master, cur, e.Via, e.At.Format(time.RFC3339Nano), c1, s.epoch, s.at.Format(time.RFC3339Nano))
			}
		}
		if s, ok := m[conf]; !ok || cur > s.epoch {
			m[conf] = seen{cur, e.At}
		}
	}
}

// s4: a sentinel never grants two different votes in the same epoch
// (+vote-for-leader <runid> <epoch>, published by the voter). The payload
// names no master, so this assumes one monitored master.
func (c *checker) s4() {
	votes := map[string]map[string]time.Time{}
	var keys []string
	for _, e := range c.events {
		if e.Channel != "+vote-for-leader" {
			continue
		}
		ev := parseEvent(e)
		if ev.runid == "" || ev.epoch < 0 {
			continue
		}
		k := e.Sentinel + " epoch " + itoa64(ev.epoch)
		if votes[k] == nil {
			votes[k] = map[string]time.Time{}
			keys = append(keys, k)
		}
		if _, ok := votes[k][ev.runid]; !ok {
			votes[k][ev.runid] = e.At
		}
	}
	for _, k := range keys {
		if len(votes[k]) > 1 {
			c.violate("S4", "%s: voted for %s", k, names(votes[k]))
		}
	}
}

// s6: never select or promote a replica with replica-priority 0 or the
// master itself; never select (+selected-slave) one the selecting sentinel
// sees SDOWN, or a node that was sampled as a master shortly before its
// selection — unless an earlier
// failover attempt of the same master had selected it (a leader that
// crashed after promoting it, B3p: the next leader rightly picks the
// orphaned new master again).
func (c *checker) s6() {
	selected := map[string]bool{} // master|replica selected before
	prio0 := map[string]bool{}
	for _, a := range c.in.Priority0 {
		prio0[c.norm(a)] = true
	}
	// sentinel → master name → replica → SDOWN. A sentinel's replica
	// objects are dropped without a -sdown when it switches the master
	// (+switch-master: sentinelResetMasterAndChangeAddress re-creates them,
	// not SDOWN) or resets it (+reset-master), and its state is unknown
	// after its event subscription broke (events missed, or a restart).
	sdown := map[string]map[string]map[string]bool{}
	for _, e := range c.eventsWithGaps() {
		ev := parseEvent(e)
		switch e.Channel {
		case ChanDisconnected:
			delete(sdown, e.Sentinel)
		case "+switch-master", "+reset-master":
			delete(sdown[e.Sentinel], ev.master)
		case "+sdown", "-sdown":
			if ev.kind == "slave" {
				if sdown[e.Sentinel] == nil {
					sdown[e.Sentinel] = map[string]map[string]bool{}
				}
				if sdown[e.Sentinel][ev.master] == nil {
					sdown[e.Sentinel][ev.master] = map[string]bool{}
				}
				sdown[e.Sentinel][ev.master][c.norm(ev.addr)] = e.Channel == "+sdown"
			}
		case "+selected-slave", "+promoted-slave":
			if ev.kind != "slave" {
				continue
			}
			a := c.norm(ev.addr)
			what := e.Channel + " " + a + " by " + e.Sentinel + " at " + e.At.Format(time.RFC3339Nano)
			if prio0[a] {
				c.violate("S6", "%s: replica-priority 0", what)
			}
			// SDOWN is judged at the selection only: +promoted-slave is
			// the leader seeing the promotion confirmed by a later INFO,
			// not a choice, and the replica it chose may be SDOWN by then
			// (B9: a starved promoted replica answers late).
			if e.Channel == "+selected-slave" && sdown[e.Sentinel][ev.master][a] {
				c.violate("S6", "%s: the replica is SDOWN for that sentinel", what)
			}
			if m := masterAddrOf(e.Payload); m != "" && c.norm(m) == a {
				c.violate("S6", "%s: the master itself", what)
			}
			if e.Channel == "+selected-slave" {
				k := c.norm(masterAddrOf(e.Payload)) + "|" + a
				again := selected[k]
				selected[k] = true
				if r, ok := c.byAddr[a]; ok && !again {
					if s, ok := c.seenBy(r, e.At.Add(-100*time.Millisecond)); ok && s.Role == "master" {
						c.violate("S6", "%s: sampled as a master at %s, not a replica", what, s.At.Format(time.RFC3339Nano))
					}
				}
			}
		}
	}
}

// l2: every config file loads with internal/config.
func (c *checker) l2() {
	names := make([]string, 0, len(c.in.ConfigFiles))
	for n := range c.in.ConfigFiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, err := config.Parse(bytes.NewReader(c.in.ConfigFiles[n]), n); err != nil {
			c.violate("L2", "%s: %v", n, err)
		}
	}
	for _, f := range c.in.ConfigHistory {
		if _, err := config.Parse(bytes.NewReader(f.Data), f.Sentinel); err != nil {
			c.violate("L2", "%s at %s: %v", f.Sentinel, f.At.Format(time.RFC3339Nano), err)
		}
	}
}

func names[V any](m map[string]V) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func itoa64(n int64) string { return strconvFormat(n) }
