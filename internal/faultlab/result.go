package faultlab

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// RunResult is one run of one scenario on one sentinel kind, as stored in
// the JSON results.
type RunResult struct {
	Scenario  string    `json:"scenario"`
	Kind      Kind      `json:"kind"`
	Run       int       `json:"run"`
	Seed      uint64    `json:"seed"`
	Start     time.Time `json:"start"`
	DurationS float64   `json:"duration_s"`
	Pass      bool      `json:"pass"`
	// Failed lists the criteria the run failed, with their figures.
	Failed []string `json:"failed,omitempty"`
	// Error is set when the run could not be carried out (the lab, the
	// topology or the schedule failed); such a run does not pass.
	Error    string                   `json:"error,omitempty"`
	Figures  Figures                  `json:"figures"`
	ByWriter map[string]WriterFigures `json:"by_writer,omitempty"`
	// Extra holds scenario-specific figures (set by the schedule).
	Extra      map[string]float64   `json:"extra,omitempty"`
	Violations []workload.Violation `json:"violations,omitempty"`
	Notes      []string             `json:"notes,omitempty"`
	// LabDir is the kept lab directory (--keep and the run failed).
	LabDir string `json:"lab_dir,omitempty"`
	// Phases is where the run's wall time went, in seconds: "lab"
	// (namespaces), "topology" (processes started until healthy), "steady"
	// (writers and sampler flowing), "schedule" (the faults, including a
	// schedule's own setup such as B9's groups), "converge" (heal → L1, at
	// most Settle), "observe", "check" (read-back, checker, Post) and
	// "teardown" (processes killed, namespaces deleted).
	Phases map[string]float64 `json:"phases,omitempty"`
}

// Figures are the scorecard's figures of one run; durations are seconds
// from the fault instant, -1 when the event never happened.
type Figures struct {
	Writes, Acked, LostAck, Phantom, Unknown, Failed int
	StaleAcks, StaleAcksLate                         int
	SplitBrainS                                      float64
	RTODetectS, RTOSwitchS, RTOConvS, RTOClientS     float64
	// ConvAfterHealS is heal → L1 as polled by the runner (-1: never).
	ConvAfterHealS                             float64
	Failovers, FalseFailovers, EpochsBurned    int
	TILTs, SDOWNFlaps, NotElected, NoGoodSlave int
	MaxQuorumMasters, Violations, Crashes      int
	SwitchesBy                                 map[string]int `json:",omitempty"`
}

// WriterFigures are one writer's figures (its client and write mode).
type WriterFigures struct {
	Client, Mode                                            string
	Writes, Acked, LostAck, Unknown, Failed                 int
	StaleAcks, StaleAcksLate, FailedApplied, UnknownApplied int
	RTOClientS                                              float64
}

func secs(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}

func figuresOf(r workload.Report) Figures {
	return Figures{Writes: r.Writes, Acked: r.Acked, LostAck: r.LostAck, Phantom: r.Phantom, Unknown: r.Unknown, Failed: r.Failed,
		StaleAcks: r.StaleAcks, StaleAcksLate: r.StaleAcksLate, SplitBrainS: float64(int(r.SplitBrainS*1000)) / 1000,
		RTODetectS: secs(r.RTODetect), RTOSwitchS: secs(r.RTOSwitch), RTOConvS: secs(r.RTOConverged), RTOClientS: secs(r.RTOClient),
		ConvAfterHealS: -1, Failovers: r.Failovers, FalseFailovers: r.FalseFailovers, EpochsBurned: r.EpochsBurned,
		TILTs: r.TILTs, SDOWNFlaps: r.SDOWNFlaps, NotElected: r.NotElected, NoGoodSlave: r.NoGoodSlave,
		MaxQuorumMasters: r.MaxQuorumMasters, Violations: len(r.Violations), SwitchesBy: r.SwitchesBy}
}

// resultFile is where the runs of one scenario on one kind are stored.
func resultFile(out, id string, kind Kind) string {
	return filepath.Join(out, fmt.Sprintf("%s-%s.json", id, kind))
}

// SaveResults writes the runs of one (scenario, kind) to out, replacing
// what an earlier invocation stored for it.
func SaveResults(out string, runs []RunResult) error {
	if len(runs) == 0 {
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("results dir: %w", err)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Run < runs[j].Run })
	data, err := json.MarshalIndent(runs, "", "  ")
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	path := resultFile(out, runs[0].Scenario, runs[0].Kind)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// LoadResults reads every result file in out, keyed by scenario then kind.
func LoadResults(out string) (map[string]map[Kind][]RunResult, error) {
	files, err := filepath.Glob(filepath.Join(out, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	all := map[string]map[Kind][]RunResult{}
	for _, f := range files {
		if strings.HasSuffix(f, ".tmp") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("results: %w", err)
		}
		var runs []RunResult
		if err := json.Unmarshal(data, &runs); err != nil {
			return nil, fmt.Errorf("results %s: %w", f, err)
		}
		for _, r := range runs {
			if all[r.Scenario] == nil {
				all[r.Scenario] = map[Kind][]RunResult{}
			}
			all[r.Scenario][r.Kind] = append(all[r.Scenario][r.Kind], r)
		}
	}
	return all, nil
}
