package faultlab

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestVotesGrantedBy: D1's votes_while_readonly counts the epochs in which
// a peer logged a vote of the read-only sentinel inside the window, in
// redis-sentinel's (and gosentinel's) log format.
func TestVotesGrantedBy(t *testing.T) {
	top := &Topology{Dir: t.TempDir(), SentinelHosts: []string{"h1", "h2", "h3"}}
	const id = "7a56051a2de9cc37e0186e91c5ef69485845c079"
	logs := map[string]string{
		"h1": "400:X 01 Dec 2026 21:51:31.000 * " + id + " voted for aaaa 1\n" + // before the window
			"400:X 01 Dec 2026 21:51:32.303 * " + id + " voted for aaaa 2\n" +
			"400:X 01 Dec 2026 21:51:32.400 * bbbb voted for aaaa 2\n", // another voter
		"h2": "401:X 01 Dec 2026 21:51:32.310 * " + id + " voted for aaaa 2\n" + // same epoch seen by h2
			"401:X 01 Dec 2026 21:51:33.500 # " + id + " voted for cccc 3\n" +
			"401:X 01 Dec 2026 21:51:40.000 * " + id + " voted for cccc 4\n", // after the restart
		"h3": "402:X 01 Dec 2026 21:51:32.500 * " + id + " voted for aaaa 5\n", // its own log does not count
	}
	for h, body := range logs {
		dir := top.hostDir(h, "")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sentinel-"+h+".out"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation("02 Jan 2006 15:04:05.000", s, time.Local)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	from, to := at("01 Dec 2026 21:51:31.500"), at("01 Dec 2026 21:51:35.000")
	if got := votesGrantedBy(top, "h3", id, from, to); len(got) != 2 || !got["2"] || !got["3"] {
		t.Errorf("votes = %v, want epochs 2 and 3", got)
	}
	if got := votesGrantedBy(top, "h3", "", from, to); got != nil {
		t.Errorf("unknown myid: %v, want nil", got)
	}
	if got := myIDOf([]byte("port 26379\nsentinel myid " + id + "\nsentinel current-epoch 3\n")); got != id {
		t.Errorf("myIDOf = %q", got)
	}
}
