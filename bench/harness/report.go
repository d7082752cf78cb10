package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Report is the content of bench/results/latest.json: sections of figures,
// each measured for both implementations.
type Report struct {
	Sections []Section `json:"sections"`
}

// Section is one part of the benchmark (failover, throughput, ...).
type Section struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Measured string   `json:"measured"` // UTC time of the measurement
	Runs     int      `json:"runs"`
	Notes    []string `json:"notes,omitempty"`
	Figures  []Figure `json:"figures,omitempty"`
	// Markdown, when set, is a table produced by another tool (the client
	// benchmark) and included as is.
	Markdown string `json:"markdown,omitempty"`
}

// Figure is one measured quantity for the real and our implementation.
type Figure struct {
	Label       string   `json:"label"`
	Unit        string   `json:"unit"`
	LowerBetter bool     `json:"lower_is_better"`
	Real        *Summary `json:"real,omitempty"`
	RealNote    string   `json:"real_note,omitempty"`
	Ours        *Summary `json:"ours,omitempty"`
	OursNote    string   `json:"ours_note,omitempty"` // e.g. "not available (reason)"
	Ratio       *float64 `json:"ratio,omitempty"`     // ours median / real median
	// Headline figures are repeated in the summary table at the top of the
	// Markdown file.
	Headline bool `json:"headline,omitempty"`
}

// NewFigure builds a figure from the per-run values of both implementations.
// A nil slice with a note marks an implementation as not measured.
func NewFigure(label, unit string, lowerBetter bool, real []float64, realNote string, ours []float64, oursNote string) Figure {
	f := Figure{Label: label, Unit: unit, LowerBetter: lowerBetter, RealNote: realNote, OursNote: oursNote}
	if realNote == "" {
		s := Summarize(real)
		f.Real = &s
	}
	if oursNote == "" {
		s := Summarize(ours)
		f.Ours = &s
	}
	if f.Real != nil && f.Ours != nil && f.Real.N > 0 && f.Ours.N > 0 && f.Real.Median != 0 {
		r := f.Ours.Median / f.Real.Median
		f.Ratio = &r
	}
	return f
}

// LoadReport reads a report; a missing file gives an empty report.
func LoadReport(path string) (Report, error) {
	var r Report
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("load report: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("load report %s: %w", path, err)
	}
	return r, nil
}

// Upsert replaces the section with the same ID, or appends it.
func (r *Report) Upsert(s Section) {
	for i := range r.Sections {
		if r.Sections[i].ID == s.ID {
			r.Sections[i] = s
			return
		}
	}
	r.Sections = append(r.Sections, s)
}

// SaveSection merges s into the report at jsonPath and rewrites both the
// JSON and the Markdown file next to it (same name, .md).
func SaveSection(jsonPath string, s Section) error {
	r, err := LoadReport(jsonPath)
	if err != nil {
		return err
	}
	r.Upsert(s)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("save report: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(jsonPath), 0o755); err != nil {
		return fmt.Errorf("save report: %w", err)
	}
	if err := writeAtomic(jsonPath, append(b, '\n')); err != nil {
		return err
	}
	return writeAtomic(MarkdownPath(jsonPath), []byte(r.Markdown()))
}

// RenderMarkdown rewrites the Markdown file of the report at jsonPath from
// the JSON alone, measuring nothing.
func RenderMarkdown(jsonPath string) error {
	r, err := LoadReport(jsonPath)
	if err != nil {
		return err
	}
	return writeAtomic(MarkdownPath(jsonPath), []byte(r.Markdown()))
}

// MarkdownPath is the Markdown file written next to a JSON report.
func MarkdownPath(jsonPath string) string {
	return strings.TrimSuffix(jsonPath, filepath.Ext(jsonPath)) + ".md"
}

func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
