package ops

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteDrillReport prints a drill report for a human.
func WriteDrillReport(w io.Writer, r *DrillReport) {
	fmt.Fprintf(w, "\nDRILL %s (%s) through %s\n", r.Master, r.Mode, r.Client)
	fmt.Fprintf(w, "  master before      %s\n", r.Before)
	fmt.Fprintf(w, "  master after       %s (ROLE %s)\n", dash(r.After), dash(r.AfterRole))
	if r.KilledPID != 0 {
		fmt.Fprintf(w, "  killed PID         %d\n", r.KilledPID)
	}
	if r.TriggeredVia != "" {
		fmt.Fprintf(w, "  SENTINEL FAILOVER  accepted by %s\n", r.TriggeredVia)
	}
	fmt.Fprintf(w, "  failover           %s\n", map[bool]string{true: "completed", false: "NOT completed"}[r.Completed])
	fmt.Fprintf(w, "  trigger -> +sdown  %s\n", msOrDash(r.SdownMs))
	fmt.Fprintf(w, "  trigger -> +odown  %s\n", msOrDash(r.OdownMs))
	fmt.Fprintf(w, "  trigger -> +switch-master %s\n", msOrDash(r.SwitchMs))
	ws := r.Writes
	fmt.Fprintf(w, "  writes             %d attempted, %d ok, %d failed, %d acknowledged by a non-master\n", ws.Attempted, ws.OK, ws.Failed, ws.NonMasterAcks)
	if len(ws.AckedBy) > 0 {
		fmt.Fprintf(w, "  acknowledged by    %s\n", formatCounts(ws.AckedBy))
	}
	fmt.Fprintf(w, "  stale acks         %d (acknowledged by the old master after the replica was told to take over: split-brain window)\n", ws.StaleAcks)
	if ws.GapFound {
		fmt.Fprintf(w, "  client write gap   %.0f ms (last ok write %+.0f ms, first ok write %+.0f ms, relative to the trigger)\n", ws.GapMs, ws.LastOKBefore, ws.FirstOKAfter)
	} else {
		fmt.Fprintf(w, "  client write gap   unknown: no successful write after the trigger\n")
	}
	if ws.FirstError != "" {
		fmt.Fprintf(w, "  first write error  %s\n", ws.FirstError)
	}
	switch {
	case r.LostError != "":
		fmt.Fprintf(w, "  lost writes        not checked: %s\n", r.LostError)
	case r.LostChecked > 0:
		fmt.Fprintf(w, "  lost writes        %d of %d acknowledged keys missing on the new master %v\n", r.Lost, r.LostChecked, r.LostSample)
	default:
		fmt.Fprintf(w, "  lost writes        not checked\n")
	}
	if r.PoolFlushes >= 0 {
		fmt.Fprintf(w, "  pool flushes       %d\n", r.PoolFlushes)
	} else {
		fmt.Fprintf(w, "  pool flushes       not exposed by this client\n")
	}
	for _, e := range r.LinkNotices {
		fmt.Fprintf(w, "  sentinel link      %s %s: %s\n", e.Source, e.Type, e.Payload)
	}
	if r.Timeline != nil {
		fmt.Fprint(w, "\n"+r.Timeline.String())
	}
	if r.Passed() {
		fmt.Fprintln(w, "\nRESULT: passed")
		return
	}
	fmt.Fprintln(w, "\nRESULT: FAILED")
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  - %s\n", p)
	}
}

func msOrDash(v float64) string {
	if v < 0 {
		return "not seen"
	}
	return fmt.Sprintf("%.0f ms", v)
}

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", dash(k), m[k]))
	}
	return strings.Join(parts, ", ")
}
