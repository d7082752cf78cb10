package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// run executes the sentinelctl root with args and returns stdout, stderr and
// the exit status main would use.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	code := 0
	var ee exitError
	switch {
	case errors.As(err, &ee):
		code = ee.code
	case err != nil:
		errb.WriteString(err.Error())
		code = 2
	}
	return out.String(), errb.String(), code
}

// testPassword protects the test deployments' data nodes (see
// testutil.StartAuthTopology).
const testPassword = "sentinelctl-test-secret"

// sentinelFlags returns --sentinel flags for d and its data-node password.
func sentinelFlags(d *testutil.Deployment) []string {
	f := []string{"--master-user", testutil.AuthUser, "--master-password", d.Password}
	for _, a := range d.SentinelAddrs() {
		f = append(f, "--sentinel", a)
	}
	return f
}

func TestStatusAndCheckCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	t.Parallel()
	top := testutil.StartAuthTopology(t, testPassword, 2)
	d := testutil.StartDeployment(t, top, testPassword, 3, 2, 5000, 60000)

	out, errs, code := run(t, append([]string{"status", "mym", "--json"}, sentinelFlags(d)...)...)
	if code != 0 {
		t.Fatalf("status exit %d: %s %s", code, out, errs)
	}
	var st struct {
		Masters []struct {
			Addr     string `json:"addr"`
			Replicas []any  `json:"replicas"`
		} `json:"masters"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Masters) != 1 || st.Masters[0].Addr != top.Master.Addr() || len(st.Masters[0].Replicas) != 2 {
		t.Errorf("status --json = %s (%v)", out, err)
	}
	out, _, code = run(t, append([]string{"status"}, sentinelFlags(d)...)...)
	if code != 0 || !strings.Contains(out, "MASTER mym  "+top.Master.Addr()) {
		t.Errorf("status table exit %d:\n%s", code, out)
	}
	// An unreachable sentinel makes status exit 1.
	_, _, code = run(t, append([]string{"status", "--sentinel", "127.0.0.1:1"}, sentinelFlags(d)...)...)
	if code != 1 {
		t.Errorf("status with a dead sentinel: exit %d, want 1", code)
	}

	// No min-replicas-to-write and same host: warnings only.
	out, _, code = run(t, append([]string{"check", "mym"}, sentinelFlags(d)...)...)
	if code != 1 || !strings.Contains(out, "min-replicas-off") {
		t.Errorf("check exit %d, want 1:\n%s", code, out)
	}
	out, _, code = run(t, append([]string{"check", "mym", "--json", "--ignore", "min-replicas-off", "--ignore", "sentinels-same-host"}, sentinelFlags(d)...)...)
	var res struct {
		Findings []any `json:"findings"`
		Exit     int   `json:"exit"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.Exit != 0 {
		t.Errorf("check --ignore: exit %d, %v:\n%s", code, err, out)
	}
}
