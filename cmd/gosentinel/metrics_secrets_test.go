package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestLogsMaskSecrets runs two gosentinels (text and json logs, loglevel
// debug) with requirepass, sentinel-pass and auth-pass set, changes
// auth-pass with SENTINEL SET, and greps both logs for the secrets. It also
// checks that the gosentinel-only options never reach the rewritten config.
func TestLogsMaskSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	secrets := map[string]string{
		"requirepass":   "Req-Secret-4711",
		"sentinel-pass": "Peer-Secret-4712",
		"auth-pass":     "Master-Secret-4713",
		"new auth-pass": "New-Secret-4714",
	}
	master := testutil.StartAuthTopology(t, secrets["auth-pass"], 0).Master
	body := "loglevel debug\nrequirepass " + secrets["requirepass"] + "\n" +
		"sentinel sentinel-pass " + secrets["sentinel-pass"] + "\n" +
		testutil.SentinelConf("mym", master.Port, 1, 1000, 3000) +
		"sentinel auth-user mym " + testutil.AuthUser + "\n" +
		"sentinel auth-pass mym " + secrets["auth-pass"] + "\n"
	tests := []struct {
		format string
	}{{"text"}, {"json"}}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			n := startMetricsNode(t, body, "--log-format", tt.format)
			c := redis.NewClient(&redis.Options{Addr: n.addr(), Password: secrets["requirepass"], MaxRetries: -1, Protocol: 2})
			t.Cleanup(func() { c.Close() })
			ctx := context.Background()
			testutil.WaitFor(t, 10*time.Second, "master link authenticated (run id from INFO, not disconnected)", func() bool {
				m, err := c.Do(ctx, "SENTINEL", "MASTER", "mym").StringSlice()
				return err == nil && len(m) > 9 && m[6] == "runid" && m[7] != "" && m[9] == "master"
			})
			if err := c.Do(ctx, "SENTINEL", "SET", "mym", "auth-pass", secrets["new auth-pass"]).Err(); err != nil {
				t.Fatal(err)
			}
			if err := c.Do(ctx, "SENTINEL", "FLUSHCONFIG").Err(); err != nil {
				t.Fatal(err)
			}
			testutil.WaitFor(t, 5*time.Second, "+set logged", func() bool {
				return strings.Contains(n.logText(), "+set master mym")
			})
			log := n.logText()
			if os.Getenv("METRICS_DUMP") != "" {
				m, _ := c.Do(ctx, "SENTINEL", "MASTER", "mym").StringSlice()
				t.Logf("SENTINEL MASTER: %q\nlog:\n%s", m, log)
			}
			for what, s := range secrets {
				if strings.Contains(log, s) {
					t.Errorf("%s value %q found in the %s log:\n%s", what, s, tt.format, log)
				}
			}
			if !strings.Contains(log, "auth-pass ******") {
				t.Errorf("no masked +set auth-pass in the log:\n%s", log)
			}
			conf, err := os.ReadFile(n.conf)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(conf), "metrics") || strings.Contains(string(conf), "log-format") {
				t.Errorf("gosentinel-only option written to the config:\n%s", conf)
			}
			if !strings.Contains(string(conf), secrets["new auth-pass"]) {
				t.Errorf("config not rewritten with the new auth-pass:\n%s", conf)
			}
		})
	}
}
