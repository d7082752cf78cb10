package ops

import "time"

// WriteStats summarises the drill's writes around the failover.
type WriteStats struct {
	Attempted     int     `json:"attempted"`
	OK            int     `json:"ok"`
	Failed        int     `json:"failed"`
	NonMasterAcks int     `json:"non_master_acks"`   // acknowledged by a node whose ROLE was not master
	LastOKBefore  float64 `json:"last_ok_before_ms"` // end of the last ok write before the gap, ms from the trigger
	FirstOKAfter  float64 `json:"first_ok_after_ms"` // end of the first ok write after the gap, ms from the trigger
	GapMs         float64 `json:"gap_ms"`            // longest interval without an ok write that ends after the trigger
	GapFound      bool    `json:"gap_found"`         // false when no ok write followed the trigger
	FirstError    string  `json:"first_error,omitempty"`
	LastError     string  `json:"last_error,omitempty"`
	// AckedBy counts ok writes per acknowledging node (CLIENT INFO laddr).
	AckedBy map[string]int `json:"acked_by"`
	// StaleAcks counts writes the old master acknowledged after the leader
	// sent REPLICAOF NO ONE to the chosen replica
	// (+failover-state-wait-promotion, else +promoted-slave): the
	// split-brain window.
	StaleAcks int `json:"stale_acks"`
}

// analyzeWrites computes WriteStats from the writer's records (in issue
// order) relative to the trigger time t0.
func analyzeWrites(recs []writeRec, t0 time.Time) WriteStats {
	s := WriteStats{AckedBy: map[string]int{}}
	var prevOK *writeRec
	for i := range recs {
		r := &recs[i]
		s.Attempted++
		if !r.ok {
			s.Failed++
			if s.FirstError == "" {
				s.FirstError = r.err
			}
			s.LastError = r.err
			continue
		}
		s.OK++
		s.AckedBy[r.node]++
		if r.role != "master" {
			s.NonMasterAcks++
		}
		if prevOK != nil && r.end.After(t0) {
			gap := r.end.Sub(prevOK.end)
			if !s.GapFound || ms(gap) > s.GapMs {
				s.GapFound = true
				s.GapMs = ms(gap)
				s.LastOKBefore = ms(prevOK.end.Sub(t0))
				s.FirstOKAfter = ms(r.end.Sub(t0))
			}
		}
		prevOK = r
	}
	return s
}

// ackedKeys returns the keys of all acknowledged writes.
func ackedKeys(recs []writeRec) []string {
	var out []string
	for _, r := range recs {
		if r.ok {
			out = append(out, r.key)
		}
	}
	return out
}

// staleAcks counts ok writes acknowledged by node old that ended after t.
func staleAcks(recs []writeRec, old string, t time.Time) int {
	n := 0
	for _, r := range recs {
		if r.ok && r.node == old && r.end.After(t) {
			n++
		}
	}
	return n
}
