package faultlab

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

func init() {
	register(&Scenario{
		ID: "D1", Title: "config dir read-only, then the master killed", Smoke: true, ExpectFailover: true,
		Fault:    "remount the config dir of the sentinel on h3 read-only, SENTINEL SET on it, SIGKILL the master; restart that sentinel after the failover",
		Expected: "ours: persist fails loudly, SENTINEL SET → -ERR, no vote granted while non-durable (redis#10151)",
		Schedule: func(ctx context.Context, e *Env) error {
			p := e.Top.Proc("sentinel-h3")
			if err := p.SetReadOnly(e.Top.SentinelDir("h3"), true); err != nil {
				return err
			}
			e.Set("ro_at_unix", float64(time.Now().UnixMilli())/1000)
			_, err := e.Top.SentinelDo(ctx, "h3", "SENTINEL", "SET", MasterName, "down-after-milliseconds", "2000")
			e.Set("sentinel_set_refused", boolf(err != nil))
			if err != nil {
				e.Note("SENTINEL SET on the read-only sentinel: %v", err)
			}
			if _, err := killMaster(ctx, e, "h1"); err != nil {
				return err
			}
			if err := e.Sleep(ctx, 3*time.Second); err != nil {
				return err
			}
			e.Set("restart_at_unix", float64(time.Now().UnixMilli())/1000)
			if err := e.Top.Kill("sentinel-h3"); err != nil {
				return err
			}
			// Its file could not record the failover: the restart is from a
			// stale config (S3 allows one step back; S4 and the vote count
			// are what D1 judges).
			e.EpochReset("h3")
			err = e.Top.StartSentinel("h3")
			e.Heal()
			return err
		},
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			from := unixTime(r.Extra["ro_at_unix"])
			to := unixTime(r.Extra["restart_at_unix"])
			// A vote is granted when it reaches the candidate: the epochs in
			// which a peer logged "<h3's myid> voted for <leader> <epoch>"
			// (sentinelReceiveIsMasterDownReply; gosentinel logs the same
			// line) while h3 ran on the read-only dir, plus those of h3's own
			// +vote-for-leader events (its vote for itself, which no peer
			// logs). The events alone would not do: gosentinel publishes one
			// only once the vote is on disk (issue 15 item 6), so a
			// non-durable gosentinel shows none whatever it answers;
			// redis-sentinel publishes it before trying to save.
			epochs := votesGrantedBy(top, "h3", myIDOf(in.ConfigFiles["sentinel-h3"]), from, to)
			events := 0
			for _, ev := range in.Events {
				if ev.Sentinel == "sentinel-h3" && ev.Channel == "+vote-for-leader" && ev.At.After(from) && ev.At.Before(to) {
					events++
					if f := strings.Fields(ev.Payload); len(f) == 2 && epochs != nil {
						epochs[f[1]] = true
					}
				}
			}
			r.Extra["votes_while_readonly"] = -1 // h3's myid unknown
			if epochs != nil {
				r.Extra["votes_while_readonly"] = float64(len(epochs))
			}
			r.Extra["vote_events_while_readonly"] = float64(events)
			r.Extra["error_logged"] = boolf(logMentions(top, "sentinel-h3", "read-only", "readonly", "erofs", "not able to save", "persist"))
		},
		Criteria: []Criterion{extraEquals("votes_while_readonly", 0, "0 votes granted while non-durable"),
			extraEquals("sentinel_set_refused", 1, "SENTINEL SET refused"),
			extraEquals("error_logged", 1, "persist failure logged")},
	}, &Scenario{
		ID: "D2", Title: "disk full during a config rewrite", ExpectFailover: true,
		Setup:    Setup{SentinelTmpfs: "256k"},
		Fault:    "fill the tmpfs config dir of the sentinel on h3 to ENOSPC, then SIGKILL the master (every sentinel rewrites its config)",
		Expected: "the old file stays intact",
		Schedule: func(ctx context.Context, e *Env) error {
			heal, err := e.Top.Proc("sentinel-h3").FillDisk(e.Top.SentinelDir("h3"))
			if err != nil {
				return err
			}
			e.Track(heal)
			if _, err := killMaster(ctx, e, "h1"); err != nil {
				return err
			}
			if err := e.Sleep(ctx, 3*time.Second); err != nil {
				return err
			}
			e.Heal()
			return nil
		},
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			r.Extra["conf_intact"] = boolf(strings.Contains(string(in.ConfigFiles["sentinel-h3"]), "sentinel monitor "+MasterName))
		},
		Criteria: []Criterion{extraEquals("conf_intact", 1, "config file intact")},
	})
}

func unixTime(s float64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(s * 1000))
}

// myIDOf returns the "sentinel myid" of a sentinel config file ("" if none).
func myIDOf(conf []byte) string {
	for _, l := range strings.Split(string(conf), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "sentinel" && f[1] == "myid" {
			return strings.ToLower(f[2])
		}
	}
	return ""
}

// logLine is a Redis (and gosentinel) log line: "<pid>:<role> <day> <mon>
// <year> <hh:mm:ss.mmm> <level char> <message>".
var logLine = regexp.MustCompile(`^\d+:[A-Z] (\d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2}\.\d{3}) . (.*)$`)

// votesGrantedBy returns the epochs in which a sentinel other than the one
// on host voter logged, between from and to, that the sentinel with myid
// voted for a leader; nil when myid is unknown.
func votesGrantedBy(top *Topology, voter, myid string, from, to time.Time) map[string]bool {
	if myid == "" {
		return nil
	}
	epochs := map[string]bool{}
	for _, h := range top.SentinelHosts {
		if h == voter {
			continue
		}
		proc := "sentinel-" + h
		for _, ext := range []string{".out", ".err"} {
			data, err := os.ReadFile(filepath.Join(top.hostDir(h, ""), proc+ext))
			if err != nil {
				continue
			}
			for _, l := range strings.Split(string(data), "\n") {
				m := logLine.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				f := strings.Fields(m[2])
				if len(f) != 5 || !strings.EqualFold(f[0], myid) || f[1] != "voted" || f[2] != "for" {
					continue
				}
				at, err := time.ParseInLocation("02 Jan 2006 15:04:05.000", m[1], time.Local)
				if err == nil && !at.Before(from) && at.Before(to) {
					epochs[f[4]] = true
				}
			}
		}
	}
	return epochs
}

// logMentions reports whether the named process's output files mention
// any of the words (case-insensitive).
func logMentions(top *Topology, proc string, words ...string) bool {
	p := top.Proc(proc)
	if p == nil {
		return false
	}
	h := strings.TrimPrefix(strings.TrimPrefix(proc, "sentinel-"), "redis-")
	for _, ext := range []string{".out", ".err"} {
		data, err := os.ReadFile(filepath.Join(top.hostDir(h, ""), proc+ext))
		if err != nil {
			continue
		}
		low := strings.ToLower(string(data))
		for _, w := range words {
			if strings.Contains(low, w) {
				return true
			}
		}
	}
	return false
}
