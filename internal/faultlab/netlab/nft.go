package netlab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
)

// faultKind says how a fault becomes nftables rules.
type faultKind int

const (
	// kindPackets drops/rejects every packet from `from` arriving at `to`.
	kindPackets faultKind = iota
	// kindOrigin drops/rejects the packets from `from` that belong to
	// connections `from` opened to `to` (conntrack original source).
	kindOrigin
	// kindPort drops/rejects packets from `from` to `to`'s TCP port.
	kindPort
	// kindProxy redirects from's new connections to to:port into a local
	// proxy and resets from's older direct connections there.
	kindProxy
)

// fault is one active network fault, rendered into rules on every apply,
// with the hosts' addresses at that moment (so ChangeIP keeps it in force).
type fault struct {
	id        int
	kind      faultKind
	from, to  *Host
	port      int
	mode      CutMode
	proxyPort int
}

// proxyMark is the SO_MARK of the proxy's upstream sockets; the redirect
// and reset rules skip marked packets so the proxy does not loop into itself.
const proxyMark = 0x4753

// verdict renders the action of a cut.
func verdict(match string, mode CutMode) []string {
	if mode == Reject {
		return []string{
			match + " meta l4proto tcp reject with tcp reset",
			match + " reject with icmpx type admin-prohibited",
		}
	}
	return []string{match + " drop"}
}

// rulesetLocked renders host h's whole table. Callers hold l.mu.
func (l *Lab) rulesetLocked(h *Host) string {
	var in, out, nat []string
	for _, id := range sortedIDs(l.faults) {
		f := l.faults[id]
		switch f.kind {
		case kindPackets:
			// Reject sits in the sender's output: the reset reaches the
			// sender's socket locally and cannot be eaten by the reverse
			// rule of a symmetric cut. Drop sits at the receiver's input
			// (a drop in output would surface as EPERM to the sender).
			if f.mode == Reject && f.from == h {
				out = append(out, verdict("ip daddr "+f.to.IP(), f.mode)...)
			}
			if f.mode == Drop && f.to == h {
				in = append(in, verdict("ip saddr "+f.from.IP(), f.mode)...)
			}
		case kindOrigin:
			if f.to == h {
				in = append(in, verdict(fmt.Sprintf("ip saddr %s ct original ip saddr %s", f.from.IP(), f.from.IP()), f.mode)...)
			}
		case kindPort:
			if f.to == h {
				in = append(in, verdict(fmt.Sprintf("ip saddr %s tcp dport %d", f.from.IP(), f.port), f.mode)...)
			}
		case kindProxy:
			if f.from == h {
				m := fmt.Sprintf("meta mark != 0x%x ip daddr %s tcp dport %d", proxyMark, f.to.IP(), f.port)
				nat = append(nat, fmt.Sprintf("%s redirect to :%d", m, f.proxyPort))
				out = append(out, m+" reject with tcp reset")
			}
		}
	}
	var b strings.Builder
	// "add + delete + define" replaces the table atomically in one transaction.
	b.WriteString("add table inet gsl\ndelete table inet gsl\ntable inet gsl {\n")
	b.WriteString("  chain in {\n    type filter hook input priority 0; policy accept;\n")
	// Referencing conntrack keeps it tracking every connection from the
	// host's first moment, so origin cuts see connections older than them.
	b.WriteString("    ct state established counter\n")
	for _, r := range in {
		b.WriteString("    " + r + "\n")
	}
	b.WriteString("  }\n  chain out {\n    type filter hook output priority 0; policy accept;\n")
	for _, r := range out {
		b.WriteString("    " + r + "\n")
	}
	b.WriteString("  }\n  chain natout {\n    type nat hook output priority -100; policy accept;\n")
	for _, r := range nat {
		b.WriteString("    " + r + "\n")
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

// applyLocked loads h's ruleset if it changed. Callers hold l.mu.
func (l *Lab) applyLocked(h *Host) error {
	rs := l.rulesetLocked(h)
	if rs == h.lastRules {
		return nil
	}
	cmd := exec.CommandContext(context.Background(), "ip", "netns", "exec", h.ns, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rs)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("netlab: nft on %s: %w: %s\n%s", h.Name, err, strings.TrimSpace(out.String()), rs)
	}
	h.lastRules = rs
	return nil
}

// applyAllLocked loads every changed host ruleset, all hosts at once so a
// partition takes effect everywhere within one nft run (~10-20 ms) rather
// than host after host. Callers hold l.mu.
func (l *Lab) applyAllLocked() error {
	errs := make([]error, len(l.hosts))
	var wg sync.WaitGroup
	for i, h := range l.hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.applyLocked(h) // touches only h.lastRules
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Rules returns the nftables ruleset currently loaded on the host (nft
// list table), for logs and debugging.
func (h *Host) Rules(ctx context.Context) (string, error) {
	out, err := h.Exec(ctx, "nft", "list", "table", "inet", "gsl")
	return string(out), err
}
