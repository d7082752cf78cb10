package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewFigureRatio(t *testing.T) {
	tests := []struct {
		name      string
		real      []float64
		ours      []float64
		oursNote  string
		wantRatio string
	}{
		{"both", []float64{2000, 2200, 2100}, []float64{1000, 1100, 1050}, "", "0.50"},
		{"ours unavailable", []float64{1}, nil, "not available (x)", "—"},
		{"ours never observed", []float64{1}, []float64{}, "", "—"},
		{"real zero", []float64{0}, []float64{1}, "", "—"},
		{"tiny ratio", []float64{140219}, []float64{25.5}, "", "0.00018"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFigure("x", "ms", true, tt.real, "", tt.ours, tt.oursNote)
			if got := ratioCell(f.Ratio); got != tt.wantRatio {
				t.Errorf("ratio = %s, want %s", got, tt.wantRatio)
			}
			if (f.Ours == nil) != (tt.oursNote != "") {
				t.Errorf("Ours = %v with note %q", f.Ours, tt.oursNote)
			}
		})
	}
}

func TestSaveSectionMerges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results", "latest.json")
	fig := NewFigure("kill → +switch-master", "ms", true, []float64{2261, 2300}, "", nil, "not available (build | failed)")
	if err := SaveSection(path, Section{ID: "scale", Title: "Scale", Runs: 1, Figures: []Figure{fig}}); err != nil {
		t.Fatal(err)
	}
	if err := SaveSection(path, Section{ID: "failover", Title: "Failover", Runs: 2, Figures: []Figure{fig}}); err != nil {
		t.Fatal(err)
	}
	// Re-saving a section replaces it instead of appending a second one.
	if err := SaveSection(path, Section{ID: "failover", Title: "Failover v2", Runs: 3, Figures: []Figure{fig}}); err != nil {
		t.Fatal(err)
	}
	r, err := LoadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sections) != 2 || r.Sections[1].Title != "Failover v2" {
		t.Fatalf("sections = %+v", r.Sections)
	}
	md := r.Markdown()
	assertContains(t, "markdown", md,
		"### Failover v2", "### Scale",
		"**gosentinel: not available (build \\| failed)**; no figure is reported for it.",
		"| kill → +switch-master (ms, lower is better) | **2280** (p90 2300, 2261–2300, n=2) | not available | — |",
	)
	if strings.Index(md, "### Failover") > strings.Index(md, "### Scale") {
		t.Errorf("failover section should come before scale:\n%s", md)
	}
	if _, err := LoadReport(filepath.Join(t.TempDir(), "none.json")); err != nil {
		t.Errorf("missing report: %v", err)
	}
}

func TestFormatNum(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{{2261.4, "2261"}, {95.25, "95.2"}, {0.695, "0.69"}, {3, "3"}, {0, "0"}}
	for _, tt := range tests {
		if got := FormatNum(tt.in); got != tt.want {
			t.Errorf("FormatNum(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownMixedNotes(t *testing.T) {
	r := Report{Sections: []Section{{ID: "storm", Title: "Storm", Runs: 1, Figures: []Figure{
		NewFigure("a", "ms", true, []float64{1}, "", []float64{2}, ""),
		NewFigure("b", "ms", true, []float64{1}, "", nil, "not available (crashed)"),
		NewFigure("c", "ms", true, []float64{1}, "", []float64{}, ""),
	}}}}
	md := r.Markdown()
	assertContains(t, "markdown", md,
		"| a (ms, lower is better) | 1 | 2 | 2.00 |",
		"| b (ms, lower is better) | 1 | not available (crashed) | — |",
		"| c (ms, lower is better) | 1 | not observed | — |",
	)
	if strings.Contains(md, "no figure is reported") {
		t.Errorf("a per-figure note was lifted above the table:\n%s", md)
	}
}

func TestMarkdownSummary(t *testing.T) {
	head := NewFigure("SIGKILL → first +switch-master", "ms", true, []float64{2295}, "", []float64{1219}, "")
	head.Headline = true
	other := NewFigure("SIGKILL → +sdown", "ms", true, []float64{1065}, "", []float64{1035}, "")
	gone := NewFigure("-c 50", "req/s", false, []float64{50000}, "", nil, "not available (build failed)")
	gone.Headline = true
	r := Report{Sections: []Section{
		{ID: "throughput", Title: "T", Figures: []Figure{gone}},
		{ID: "failover", Title: "F", Figures: []Figure{head, other}},
	}}
	md := r.Markdown()
	sum := md[:strings.Index(md, "### F")]
	assertContains(t, "summary", sum,
		"### Summary",
		"| SIGKILL → first +switch-master (ms) | 2295 | 1219 | 0.53 |",
		"| -c 50 (req/s) | 50000 | not available | — |",
	)
	if strings.Contains(sum, "+sdown") {
		t.Errorf("a non-headline figure is in the summary:\n%s", sum)
	}
	if strings.Index(sum, "first +switch-master") > strings.Index(sum, "-c 50") {
		t.Errorf("summary rows not in section order:\n%s", sum)
	}
	if strings.Contains(Report{}.Markdown(), "Summary") {
		t.Errorf("empty report has a summary")
	}
}

func TestRenderMarkdown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if err := SaveSection(path, Section{ID: "storm", Title: "Storm", Figures: []Figure{NewFigure("x", "ms", true, []float64{1}, "", nil, "n/a")}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(MarkdownPath(path)); err != nil {
		t.Fatal(err)
	}
	if err := RenderMarkdown(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(MarkdownPath(path))
	if err != nil || !strings.Contains(string(b), "### Storm") {
		t.Errorf("rendered markdown = %q, %v", b, err)
	}
}

// assertContains reports every one of wants that text (named what in the
// message) lacks.
func assertContains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}
