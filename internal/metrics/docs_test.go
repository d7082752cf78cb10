package metrics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// seriesNames returns the gosentinel_ series the registry can produce.
func seriesNames(t *testing.T) map[string]bool {
	t.Helper()
	m := New(0)
	names := map[string]bool{}
	all := append(m.events.collectors(), newStateCollector(nil, 0))
	re := regexp.MustCompile(`fqName: "([^"]+)"`)
	for _, c := range all {
		ch := make(chan *prometheus.Desc, 64)
		go func() { c.Describe(ch); close(ch) }()
		for d := range ch {
			if mm := re.FindStringSubmatch(d.String()); mm != nil {
				names[mm[1]] = true
			}
		}
	}
	if len(names) < 20 {
		t.Fatalf("only %d series described: %v", len(names), names)
	}
	return names
}

var nameRef = regexp.MustCompile(`gosentinel_[a-z_]+`)

// TestDocsReferenceRealSeries checks the alert rules, the dashboard and
// docs/metrics.md against the registry.
func TestDocsReferenceRealSeries(t *testing.T) {
	names := seriesNames(t)
	docs := filepath.Join("..", "..", "docs")
	tests := []struct {
		file     string
		valid    func([]byte) error
		complete bool // must mention every series
	}{
		{"prometheus-alerts.yml", nil, false},
		{"grafana-dashboard.json", func(b []byte) error { var v any; return json.Unmarshal(b, &v) }, false},
		{"metrics.md", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(docs, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if tt.valid != nil {
				if err := tt.valid(b); err != nil {
					t.Fatalf("invalid: %v", err)
				}
			}
			seen := map[string]bool{}
			for _, ref := range nameRef.FindAllString(string(b), -1) {
				base := ref
				for _, suf := range []string{"_bucket", "_count", "_sum"} {
					if s, ok := strings.CutSuffix(ref, suf); ok && names[s] {
						base = s
					}
				}
				if !names[base] {
					t.Errorf("%s references %s, which is not a series", tt.file, ref)
				}
				seen[base] = true
			}
			if tt.complete {
				for n := range names {
					if !seen[n] {
						t.Errorf("%s does not document %s", tt.file, n)
					}
				}
			}
		})
	}
}
