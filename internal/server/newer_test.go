package server

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TestCompareWithValkeySentinel runs the Redis 7.2 / Valkey 8 additions of
// the server layer against valkey-sentinel 8.0.1 (installed by
// scripts/deps.sh): CLIENT SETINFO and its errors, the new subcommands'
// COMMAND INFO, and the arity of SENTINEL CONFIG.
func TestCompareWithValkeySentinel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts valkey-sentinel")
	}
	bin, err := exec.LookPath("valkey-sentinel")
	if err != nil {
		t.Fatalf("valkey-sentinel not installed (run scripts/deps.sh): %v", err)
	}
	valkey := startSentinelBin(t, bin)
	_, ours, _ := startServer(t, Config{})
	cases := []string{
		"CLIENT SETINFO lib-name go-redis\r\nCLIENT SETINFO LIB-VER 9.7.0\r\nCLIENT SETINFO lib-name \"a b\"\r\nCLIENT SETINFO LIB-NAME \"a\xe9\"\r\nCLIENT SETINFO foo x\r\nCLIENT SETINFO lib-ver\r\nCLIENT SETINFO lib-ver \"\"\r\n",
		"COMMAND INFO client|setinfo sentinel|primary sentinel|primaries sentinel|get-primary-addr-by-name sentinel|is-primary-down-by-addr sentinel|config\r\n",
		"COMMAND COUNT\r\n",
		"SENTINEL CONFIG GET\r\nSENTINEL PRIMARY\r\nSENTINEL PRIMARIES x\r\nSENTINEL IS-PRIMARY-DOWN-BY-ADDR a b c\r\n",
	}
	for i, raw := range cases {
		n := strings.Count(raw, "\r\n")
		t.Run(fmt.Sprint(i), func(t *testing.T) { compareExchange(t, valkey, ours, raw, n) })
	}
	t.Run("client-info", func(t *testing.T) {
		for _, addr := range []string{valkey, ours} {
			c := dial(t, addr)
			c.do("CLIENT", "SETINFO", "LIB-NAME", "go-redis")
			c.do("CLIENT", "SETINFO", "LIB-VER", "9.7.0")
			if line := c.do("CLIENT", "INFO").Str; !strings.Contains(line, " lib-name=go-redis lib-ver=9.7.0") {
				t.Errorf("%s: %q", addr, line)
			}
		}
	})
}
