package ops

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Severity ranks a check finding.
type Severity int

// Severities, in increasing order.
const (
	Info Severity = iota
	Warning
	Error
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalJSON writes the severity as its name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Finding is one result of the deployment lint.
type Finding struct {
	Severity Severity `json:"severity"`
	Rule     string   `json:"rule"`             // stable identifier, usable with --ignore
	Master   string   `json:"master,omitempty"` // master name the finding is about
	Message  string   `json:"message"`          // what is wrong
	Evidence string   `json:"evidence"`         // what was observed
	Fix      string   `json:"fix"`              // what to do
}

// SortFindings orders findings by severity (worst first), master, rule.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Master != b.Master {
			return a.Master < b.Master
		}
		return a.Rule < b.Rule
	})
}

// ExitCode maps findings to the check command's exit status: 2 when any
// error, 1 when any warning, 0 otherwise (clean or info only).
func ExitCode(fs []Finding) int {
	worst := -1
	for _, f := range fs {
		worst = max(worst, int(f.Severity))
	}
	switch Severity(worst) {
	case Error:
		return 2
	case Warning:
		return 1
	}
	return 0
}

// FilterFindings drops findings whose rule is in ignore.
func FilterFindings(fs []Finding, ignore []string) []Finding {
	if len(ignore) == 0 {
		return fs
	}
	skip := map[string]bool{}
	for _, r := range ignore {
		skip[r] = true
	}
	out := fs[:0:0]
	for _, f := range fs {
		if !skip[f.Rule] {
			out = append(out, f)
		}
	}
	return out
}

// WriteFindings prints findings for a human, one block each, then a summary.
func WriteFindings(w io.Writer, fs []Finding) {
	counts := map[Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
		subject := ""
		if f.Master != "" {
			subject = " [" + f.Master + "]"
		}
		fmt.Fprintf(w, "%-7s %s%s: %s\n", strings.ToUpper(f.Severity.String()), f.Rule, subject, f.Message)
		if f.Evidence != "" {
			fmt.Fprintf(w, "        evidence: %s\n", f.Evidence)
		}
		if f.Fix != "" {
			fmt.Fprintf(w, "        fix: %s\n", f.Fix)
		}
	}
	if len(fs) == 0 {
		fmt.Fprintln(w, "no findings")
		return
	}
	fmt.Fprintf(w, "\n%d error(s), %d warning(s), %d info\n", counts[Error], counts[Warning], counts[Info])
}
