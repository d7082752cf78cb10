package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestRelativeScriptPath: a notification script given as a bare relative
// name is found in the sentinel's working directory (`dir`), not in $PATH,
// and runs there.
func TestRelativeScriptPath(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	master := testutil.StartRedis(t)
	work := t.TempDir()
	data := filepath.Join(work, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "script.out")
	script := "#!/bin/sh\necho \"$(pwd) $1\" >> " + out + "\n"
	if err := os.WriteFile(filepath.Join(data, "notify.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	port := testutil.FreePort(t)
	conf := filepath.Join(work, "sentinel.conf")
	body := "port " + strconv.Itoa(port) + "\nbind 127.0.0.1\ndir ./data\nlogfile s.log\n" +
		"sentinel monitor mym 127.0.0.1 " + strconv.Itoa(master.Port) + " 1\n" +
		"sentinel notification-script mym notify.sh\n"
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.StartSentinelConf(t, bin, conf, port, filepath.Join(data, "s.log"))
	testutil.WaitFor(t, 10*time.Second, "notify.sh ran for +monitor", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), data+" +monitor")
	})
}
