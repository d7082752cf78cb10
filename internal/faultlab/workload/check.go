package workload

import (
	"fmt"
	"sort"
	"time"
)

// Input is everything a run recorded, for Check.
type Input struct {
	FaultAt, HealAt time.Time
	OldMaster       string // "ip:port" of the master before the fault
	Quorum          int    // for S5 (default 2)
	Priority0       []string
	Ops             []Op
	Samples         []Sample
	Events          []Event
	Final           FinalRead
	FinalMaster     string
	ConfigFiles     map[string][]byte // sentinel name → sentinel.conf, checked with internal/config
	Crashes         []string          // processes that exited unexpectedly

	// MasterName filters events by master name ("" = every master).
	MasterName string
	// ExpectFailover says whether the scenario expects a failover: without
	// one every failover is false; with one every failover after the first.
	ExpectFailover bool
	// Period is the sampling period (default 50 ms). A node's state at an
	// instant is its latest sample; a failed sample (dead or hung node: the
	// sampler records the timeout, stamped with the time it was sent)
	// makes it unknown, and so does a gap in its samples longer than
	// MaxSampleAge (default the larger of 1 s and 20×Period).
	Period       time.Duration
	MaxSampleAge time.Duration
	// Aliases maps other spellings of an address (hostname:port) to the
	// canonical "ip:port" used by the targets.
	Aliases map[string]string
	// EpochResets names sentinels restarted on purpose from an old copy of
	// their config: each may see its epochs go back once (S3).
	EpochResets []string
	// ConfigHistory holds copies of config files taken during the run (L2
	// "at every instant"); each is checked like ConfigFiles.
	ConfigHistory []ConfigFile
	// Observed are events a schedule's own subscription received from a
	// sentinel it then SIGKILLed (B3k kills the leader on a failover
	// state). A sentinel's publish reaches its subscribers one connection
	// at a time, so the kill can land after the schedule's copy and before
	// the recorder's: the checker adds each one Events lacks (same
	// sentinel, channel and payload within 2 s). Without it, B3k's next
	// leader rightly re-selecting the replica the killed one had already
	// promoted reads as S6 (a master selected).
	Observed []Event
	// Resources are readings of the lab's processes (StartResourceSampler)
	// for R1's "no unbounded growth"; ResourceLimits bounds it.
	Resources      []ResourceSample
	ResourceLimits ResourceLimits
}

// ConfigFile is one copy of a sentinel's config file.
type ConfigFile struct {
	At       time.Time
	Sentinel string
	Data     []byte
}

// Report holds the figures and invariant violations of one run.
type Report struct {
	Writes, Acked, LostAck, Phantom, Unknown, Failed int
	StaleAcks                                        int     // acked by a node invoked after the sentinels' +switch-master away from it
	StaleAcksLate                                    int     // ... invoked more than 1 s after it
	SplitBrainS                                      float64 // seconds with ≥2 redis role:master AND AcceptsWrite
	// RTOClient is, for the worst writer, fault → acknowledgement of its
	// first write invoked after the fault and acknowledged by FinalMaster
	// (-1 if a writer never got one).
	RTODetect, RTOSwitch, RTOConverged, RTOClient time.Duration
	Failovers                                     int // distinct (master, new address, epoch) +switch-master
	FalseFailovers                                int
	EpochsBurned                                  int // max current-epoch rise of one sentinel during the run
	TILTs, SDOWNFlaps, NotElected, NoGoodSlave    int
	Violations                                    []Violation

	// MaxQuorumMasters is the most distinct addresses reported each by
	// ≥ Quorum sentinels at one instant (S5: must be ≤ 1).
	MaxQuorumMasters int
	// Duplicates counts ids present more than once in the final read.
	Duplicates int
	// TornTx counts MULTI/EXEC transactions (Op.Tx) of which some ids are
	// in the final read and others not (violation W2).
	TornTx int
	// FailedApplied counts ids recorded "fail" yet present in the final
	// read (a misclassification: violation W1).
	FailedApplied int
	// UnknownApplied counts unknown ids present in the final read.
	UnknownApplied int
	// NoNode counts ok writes whose acknowledging node is unknown.
	NoNode int
	// RTOClientBy is RTO_client per writer (-1: none after the fault).
	RTOClientBy map[string]time.Duration
	// SwitchesBy counts +switch-master events per sentinel.
	SwitchesBy map[string]int
	// PerWriter holds the write figures of each writer (one writer is one
	// client kind and write mode).
	PerWriter map[string]WriterReport
	// Notes explain figures that could not be computed.
	Notes []string
}

// WriterReport is the write figures of one writer.
type WriterReport struct {
	Writes, Acked, LostAck, Unknown, Failed, StaleAcks, StaleAcksLate int
}

// Violation is one broken invariant with its evidence.
type Violation struct{ ID, Detail string }

// Check computes the figures and invariants of one run. It is a pure
// function of its input.
func Check(in Input) Report {
	if in.Period <= 0 {
		in.Period = 50 * time.Millisecond
	}
	if in.MaxSampleAge <= 0 {
		in.MaxSampleAge = max(time.Second, 20*in.Period)
	}
	if in.Quorum <= 0 {
		in.Quorum = 2
	}
	c := &checker{in: in, r: Report{RTODetect: -1, RTOSwitch: -1, RTOConverged: -1, RTOClient: -1,
		RTOClientBy: map[string]time.Duration{}, SwitchesBy: map[string]int{}, PerWriter: map[string]WriterReport{}}}
	c.index()
	c.writes()
	c.stale()
	c.timeline()
	c.eventFigures()
	c.s1()
	c.s2()
	c.s3()
	c.s4()
	c.s6()
	c.l2()
	for _, p := range in.Crashes {
		c.violate("R1", "process exited unexpectedly: %s", p)
	}
	c.r1Resources()
	return c.r
}

type checker struct {
	in       Input
	r        Report
	events   []Event             // sentinel events about our master, by time (no hellos, no markers)
	samples  map[string][]Sample // by target, by time
	kinds    map[string]string   // target → kind
	addrs    map[string]string   // target → canonical address
	byAddr   map[string]string   // canonical address → redis target
	redis    []string            // redis target names, sorted
	sentinel []string            // sentinel target names, sorted
}

func (c *checker) violate(id, format string, args ...any) {
	c.r.Violations = append(c.r.Violations, Violation{ID: id, Detail: fmt.Sprintf(format, args...)})
}

func (c *checker) note(format string, args ...any) {
	c.r.Notes = append(c.r.Notes, fmt.Sprintf(format, args...))
}

// norm returns the canonical spelling of an address.
func (c *checker) norm(a string) string {
	if v, ok := c.in.Aliases[a]; ok {
		return v
	}
	return a
}

func (c *checker) index() {
	c.samples = map[string][]Sample{}
	c.kinds = map[string]string{}
	c.addrs = map[string]string{}
	c.byAddr = map[string]string{}
	for _, s := range c.in.Samples {
		c.samples[s.Target] = append(c.samples[s.Target], s)
		if _, ok := c.kinds[s.Target]; !ok {
			c.kinds[s.Target] = s.Kind
			c.addrs[s.Target] = c.norm(s.Addr)
			switch s.Kind {
			case KindRedis:
				c.redis = append(c.redis, s.Target)
				c.byAddr[c.norm(s.Addr)] = s.Target
			case KindSentinel:
				c.sentinel = append(c.sentinel, s.Target)
			}
		}
	}
	for _, l := range c.samples {
		sort.SliceStable(l, func(i, j int) bool { return l[i].At.Before(l[j].At) })
	}
	sort.Strings(c.redis)
	sort.Strings(c.sentinel)
	for _, e := range withObserved(c.in.Events, c.in.Observed) {
		if e.Channel == HelloChannel || len(e.Channel) > 4 && e.Channel[:4] == "lab:" {
			continue
		}
		if c.in.MasterName != "" {
			if ev := parseEvent(e); ev.master != "" && ev.master != c.in.MasterName {
				continue
			}
		}
		c.events = append(c.events, e)
	}
	sort.SliceStable(c.events, func(i, j int) bool { return c.events[i].At.Before(c.events[j].At) })
}

// at returns target's latest sample at or before t if it has no error and
// is not older than MaxSampleAge. Samples are stamped when sent, so a node
// that stops answering turns unknown from the first sample it failed.
// seenBy returns the latest sample of target that was complete at t (its
// Done, or At when Done is unknown, at or before t): what the node was at
// some instant before t. A sample sent before t but answered after it may
// show a state the node reached after t.
func (c *checker) seenBy(target string, t time.Time) (Sample, bool) {
	l := c.samples[target]
	i := sort.Search(len(l), func(i int) bool { return l[i].At.After(t) }) - 1
	for ; i >= 0; i-- {
		s := l[i]
		if !s.Done.IsZero() && s.Done.After(t) {
			continue
		}
		if t.Sub(s.At) > c.in.MaxSampleAge || s.Err != "" {
			return Sample{}, false
		}
		return s, true
	}
	return Sample{}, false
}

func (c *checker) at(target string, t time.Time) (Sample, bool) {
	l := c.samples[target]
	i := sort.Search(len(l), func(i int) bool { return l[i].At.After(t) }) - 1
	if i < 0 {
		return Sample{}, false
	}
	s := l[i]
	if t.Sub(s.At) > c.in.MaxSampleAge || s.Err != "" {
		return Sample{}, false
	}
	return s, true
}

// observedMatch is how far apart the recorder's and a schedule's copies of
// one event may be stamped.
const observedMatch = 2 * time.Second

// withObserved returns events plus each observed event it lacks (same
// sentinel, channel and payload stamped within observedMatch).
func withObserved(events, observed []Event) []Event {
	if len(observed) == 0 {
		return events
	}
	out := append([]Event(nil), events...)
	for _, o := range observed {
		found := false
		for _, e := range events {
			if e.Sentinel == o.Sentinel && e.Channel == o.Channel && e.Payload == o.Payload {
				if d := e.At.Sub(o.At); d < observedMatch && d > -observedMatch {
					found = true
					break
				}
			}
		}
		if !found {
			o.Via = "schedule"
			out = append(out, o)
		}
	}
	return out
}
