package conformance

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// badConfigs are sentinel.conf bodies both implementations must refuse
// with the same fatal error on stderr and exit status 1.
var badConfigs = []struct{ name, body string }{
	{"quorum 0", "sentinel monitor mym 127.0.0.1 6379 0\n"},
	{"unknown sentinel directive", "sentinel nosuch mym 1\n"},
	{"monitor arity", "sentinel monitor mym 127.0.0.1 6379\n"},
	{"bad myid", "sentinel myid abc\n"},
	{"duplicate master", "sentinel monitor mym 127.0.0.1 6379 1\nsentinel monitor mym 127.0.0.1 6380 1\n"},
	{"hostname without resolve-hostnames", "sentinel monitor mym no.such.host.invalid 6379 1\n"},
	{"unknown server directive", "nosuchdirective yes\n"},
	{"bad port", "port abc\n"},
	{"per-master option for unknown master", "sentinel down-after-milliseconds nosuch 1000\n"},
	{"bad down-after", "sentinel monitor mym 127.0.0.1 6379 1\nsentinel down-after-milliseconds mym 0\n"},
	{"unbalanced quotes", "sentinel monitor \"mym 127.0.0.1 6379 1\n"},
	{"port 0 and no unixsocket", "sentinel monitor mym 127.0.0.1 6379 1\n"},
	{"rename-command twice", "sentinel monitor mym 127.0.0.1 6379 1\nsentinel rename-command mym PING P1\nsentinel rename-command mym PING P2\n"},
}

// Every body is preceded by "port 0": real Sentinel then exits with
// "Configured to not listen anywhere, exiting." (stdout, exit 1) once the
// file loaded, so no case leaves a process running.

// runFatal runs bin on a config file holding body and returns its exit
// code, stdout and stderr.
func runFatal(t *testing.T, bin, body string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(conf, []byte("port 0\nbind 127.0.0.1\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "sentinel.conf")
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	default:
		t.Fatalf("run %s: %v", bin, err)
		return 0, "", ""
	}
}

func TestFatalConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range badConfigs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc, _, rerr := runFatal(t, realBin, tc.body)
			oc, _, oerr := runFatal(t, oursBin, tc.body)
			if rc != 1 {
				t.Fatalf("real redis-sentinel exited %d (stderr %q): not a fatal config case", rc, rerr)
			}
			f, isKnown := known["fatal: "+tc.name]
			switch {
			case (oc != rc || oerr != rerr) && isKnown:
				t.Logf("known difference %s: real exit %d %q, ours exit %d %q", f, rc, rerr, oc, oerr)
			case isKnown:
				t.Errorf("known difference %s (%s) no longer occurs: remove it from known and FINDINGS.md", f, tc.name)
			case oc != rc || oerr != rerr:
				t.Errorf("fatal config error differs:\nreal: exit %d %q\nours: exit %d %q", rc, rerr, oc, oerr)
			}
		})
	}
}
