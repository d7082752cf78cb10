package main

import (
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

func TestCheckCommandBadDeployment(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	t.Parallel()
	top := testutil.StartAuthTopology(t, testPassword, 2, []string{"replica-priority 0"}, []string{"replica-priority 0"})
	d := testutil.StartDeployment(t, top, testPassword, 2, 1, 5000, 60000)
	out, _, code := run(t, append([]string{"check", "--json"}, sentinelFlags(d)...)...)
	if code != 2 {
		t.Errorf("check exit %d, want 2:\n%s", code, out)
	}
	for _, rule := range []string{`"sentinel-count"`, `"no-eligible-replica"`, `"quorum-low"`} {
		if !strings.Contains(out, rule) {
			t.Errorf("check output lacks %s", rule)
		}
	}
}
