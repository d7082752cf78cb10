package ops

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteStatus prints st as aligned tables, one block per master.
func WriteStatus(w io.Writer, st *Status) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SENTINEL\tREACHABLE\tMYID\tERROR")
	for _, s := range st.Sentinels {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Addr, yesNo(s.Reachable), short(s.MyID), dash(s.Error))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write status: %w", err)
	}
	if len(st.Masters) == 0 {
		fmt.Fprintln(w, "\nno master known to the given sentinels")
	}
	for i := range st.Masters {
		if err := writeMaster(w, &st.Masters[i]); err != nil {
			return err
		}
	}
	return nil
}

func writeMaster(w io.Writer, m *MasterStatus) error {
	fmt.Fprintf(w, "\nMASTER %s  %s  flags=%s  config-epoch=%d", m.Name, dash(m.Addr), dash(m.Flags), m.ConfigEpoch)
	if m.FailoverState != "" {
		fmt.Fprintf(w, "  failover-state=%s", m.FailoverState)
	}
	fmt.Fprintln(w)
	if m.Source == "" {
		fmt.Fprintln(w, "  no sentinel could describe this master")
	} else {
		fmt.Fprintf(w, "  quorum %d, known sentinels %d, majority %d, failover needs %d votes (view of %s)\n",
			m.Quorum, m.KnownSentinels, m.Majority, m.FailoverNeeds, m.Source)
		fmt.Fprintf(w, "  down-after %d ms, failover-timeout %d ms, parallel-syncs %d\n", m.DownAfterMs, m.FailoverTimeout, m.ParallelSyncs)
		fmt.Fprintf(w, "  ckquorum: %s\n", m.CKQuorum)
		if m.MasterInfoError != "" {
			fmt.Fprintf(w, "  master INFO unavailable: %s\n", m.MasterInfoError)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  ROLE\tADDRESS\tFLAGS\tLINK\tOFFSET\tBEHIND\tLAG\tPRIORITY")
	if m.Addr != "" {
		fmt.Fprintf(tw, "  master\t%s\t%s\t-\t%s\t-\t-\t-\n", m.Addr, m.Flags, num(m.MasterOffset))
	}
	for _, r := range m.Replicas {
		link := r.LinkStatus
		if r.LinkDownMs > 0 {
			link += fmt.Sprintf(" (down %d ms)", r.LinkDownMs)
		}
		lag := "-"
		if r.LagSec >= 0 {
			lag = strconv.FormatInt(r.LagSec, 10) + "s"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", roleName(r.RoleReported), r.Addr, r.Flags, dash(link), r.Offset, num(r.Behind), lag, num(r.Priority))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write status: %w", err)
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  SENTINEL\tADDRESS\tRUNID\tFLAGS\tLAST-HELLO\tVOTED-LEADER")
	for _, p := range m.Peers {
		hello := "(reporter)"
		if !p.IsReporter {
			hello = num(p.LastHelloMs) + " ms"
		}
		fmt.Fprintf(tw, "  sentinel\t%s\t%s\t%s\t%s\t%s\n", p.Addr, short(p.RunID), p.Flags, hello, dash(strings.TrimPrefix(p.VotedLeader, "?")))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write status: %w", err)
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  ASKED\tMASTER-ADDR\tCONFIG-EPOCH\tFLAGS/ERROR")
	for _, op := range m.Opinions {
		if op.Error != "" {
			fmt.Fprintf(tw, "  %s\t-\t-\t%s\n", op.Sentinel, op.Error)
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\n", op.Sentinel, op.Addr, op.ConfigEpoch, op.Flags)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write status: %w", err)
	}
	if len(m.Disagreements) == 0 {
		fmt.Fprintln(w, "  sentinels agree")
	}
	for _, d := range m.Disagreements {
		fmt.Fprintf(w, "  DISAGREEMENT: %s\n", d)
	}
	return nil
}

func roleName(r string) string {
	switch r {
	case "slave":
		return "replica"
	case "":
		return "replica?"
	}
	return r
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func num(n int64) string {
	if n < 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return dash(id)
}
