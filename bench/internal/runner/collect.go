package runner

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/bench/harness"
)

// FigureDef names one figure of a section.
type FigureDef struct {
	Key         string
	Label       string
	Unit        string
	LowerBetter bool
	Headline    bool // repeated in the summary table
}

// Collector gathers per-run values of a section's figures for both
// implementations.
type Collector struct {
	Real, Ours harness.Impl
	defs       []FigureDef
	vals       map[string]map[string][]float64 // impl name → key → values
	failures   map[string]int
	gaveUp     map[string]int
	out        io.Writer
}

// NewCollector returns a collector printing progress to out.
func NewCollector(real, ours harness.Impl, out io.Writer) *Collector {
	return &Collector{Real: real, Ours: ours, out: out,
		vals: map[string]map[string][]float64{}, failures: map[string]int{}, gaveUp: map[string]int{}}
}

// Define adds a figure (in display order); defining a key twice is a no-op.
func (c *Collector) Define(d FigureDef) {
	for _, e := range c.defs {
		if e.Key == d.Key {
			return
		}
	}
	c.defs = append(c.defs, d)
}

// Add records one run's value of figure key for impl (NaN = not observed).
func (c *Collector) Add(impl harness.Impl, key string, v float64) {
	m := c.vals[impl.Name]
	if m == nil {
		m = map[string][]float64{}
		c.vals[impl.Name] = m
	}
	m[key] = append(m[key], v)
}

// Fail records a failed run of impl and prints why.
func (c *Collector) Fail(impl harness.Impl, what string, err error) {
	c.failures[impl.Name]++
	fmt.Fprintf(c.out, "  %s %s: FAILED: %s\n", impl.Name, what, firstLine(err.Error()))
}

// MaxConsecutiveFailures is how many runs in a row an implementation may
// fail in one Alternate before its remaining runs there are skipped (a
// sentinel that cannot fail over would otherwise cost a timeout per run).
const MaxConsecutiveFailures = 2

// Alternate calls fn runs times for each available implementation,
// swapping the order every run (real first on even runs, ours first on odd
// runs) so that drifting machine load hits both alike. fn reports a failed
// run with Fail.
func (c *Collector) Alternate(runs int, fn func(run int, impl harness.Impl)) {
	consec := map[string]int{}
	for r := 0; r < runs; r++ {
		order := []harness.Impl{c.Real, c.Ours}
		if r%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, im := range order {
			if !im.Available() || consec[im.Name] >= MaxConsecutiveFailures {
				continue
			}
			before := c.failures[im.Name]
			fn(r, im)
			if c.failures[im.Name] > before {
				consec[im.Name]++
				if consec[im.Name] == MaxConsecutiveFailures && r+1 < runs {
					c.gaveUp[im.Name]++
					fmt.Fprintf(c.out, "  %s: %d failures in a row, its remaining runs here are skipped\n", im.Name, MaxConsecutiveFailures)
				}
			} else {
				consec[im.Name] = 0
			}
		}
	}
}

// Section builds the report section and prints its table.
func (c *Collector) Section(id, title string, runs int, notes []string) harness.Section {
	s := harness.Section{ID: id, Title: title, Runs: runs, Measured: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Notes: notes}
	if la := loadAvg(); la != "" {
		s.Notes = append(s.Notes, "Load average (1/5/15 min) when the section ended: "+la+" on "+strconv.Itoa(runtime.NumCPU())+" CPUs.")
	}
	for name, n := range c.failures {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: %d run(s) failed; their figures are left out.", name, n))
	}
	for name, n := range c.gaveUp {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: gave up %d time(s) after %d failed runs in a row.", name, n, MaxConsecutiveFailures))
	}
	for _, d := range c.defs {
		f := harness.NewFigure(d.Label, d.Unit, d.LowerBetter,
			c.vals[c.Real.Name][d.Key], note(c.Real), c.vals[c.Ours.Name][d.Key], note(c.Ours))
		f.Headline = d.Headline
		s.Figures = append(s.Figures, f)
	}
	PrintSection(c.out, s)
	return s
}

// loadAvg returns the first three fields of /proc/loadavg, or "".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func note(im harness.Impl) string {
	if im.Available() {
		return ""
	}
	return fmt.Sprintf("not available (%s)", firstLine(im.Unavailable))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	const max = 160
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// PrintSection prints every figure of s with both implementations and the
// ratio ours / real.
func PrintSection(w io.Writer, s harness.Section) {
	fmt.Fprintf(w, "\n== %s (%d runs) ==\n", s.Title, s.Runs)
	for _, n := range s.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	for _, f := range s.Figures {
		ratio := "—"
		if f.Ratio != nil {
			ratio = harness.FormatRatio(*f.Ratio)
		}
		fmt.Fprintf(w, "  %-50s %-5s %s: %-24s %s: %-24s ours/real: %s\n", f.Label, f.Unit,
			harness.RealName, short(f.Real, f.RealNote), harness.OursName, short(f.Ours, f.OursNote), ratio)
	}
}

func short(s *harness.Summary, note string) string {
	if s == nil {
		return note
	}
	if s.N == 0 {
		return "not observed"
	}
	return fmt.Sprintf("%s (p90 %s, n=%d)", harness.FormatNum(s.Median), harness.FormatNum(s.P90), s.N)
}

// nan is a not-observed value.
var nan = math.NaN()
