package config

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// valkeySentinel returns the path of valkey-sentinel (8.0.x, installed by
// scripts/deps.sh); the test fails when it is missing.
func valkeySentinel(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("valkey-sentinel")
	if err != nil {
		t.Fatalf("valkey-sentinel not installed (run scripts/deps.sh): %v", err)
	}
	return p
}

// TestValkeyDirectivesAccepted loads testdata/all-valkey8-options.conf
// (CONFIG GET * of valkey-server 8.0.1 plus its hidden configs, every
// directive with its default) and a file with non-default Valkey-only
// values; both load in valkey-sentinel, in gosentinel, and in gosentinel
// again after valkey-sentinel rewrote them.
func TestValkeyDirectivesAccepted(t *testing.T) {
	bin := valkeySentinel(t)
	all, err := os.ReadFile("testdata/all-valkey8-options.conf")
	if err != nil {
		t.Fatal(err)
	}
	nondefault := "enable-debug-assert yes\nextended-redis-compatibility yes\navailability-zone \"az-1\"\n" +
		"primaryauth \"pw\"\nprimaryuser \"u\"\ndual-channel-replication-enabled yes\n" +
		"events-per-io-thread 3\nprefetch-batch-max-size 8\nbio-cpulist \"0\"\nloglevel nothing\n" +
		"hide-user-data-from-log yes\nset-max-listpack-value 128\nlocale-collate \"C\"\n"
	for _, tc := range []struct{ name, body string }{
		{"all-defaults", string(all)},
		{"non-default", nondefault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			m := freePort(t)
			conf := tc.body + "sentinel myid " + fixedID + "\nsentinel monitor m1 127.0.0.1 " + strconv.Itoa(m) + " 2\n"
			if _, err := Parse(strings.NewReader(conf), "s.conf"); err != nil {
				t.Fatalf("gosentinel refuses the file: %v", err)
			}
			if err := os.WriteFile(filepath.Join(dir, "sentinel.conf"), []byte(conf), 0o644); err != nil {
				t.Fatal(err)
			}
			out := runBin(t, bin, dir, freePort(t), nil, "", "")
			back, err := Parse(strings.NewReader(out), "valkey.conf")
			if err != nil {
				t.Fatalf("gosentinel refuses valkey-sentinel's rewrite: %v\n%s", err, out)
			}
			if back.Master("m1") == nil || back.Sentinel.MyID != fixedID {
				t.Fatalf("state lost: %+v", back.Sentinel)
			}
		})
	}
}

// TestValkeyAliasesRewrite: Valkey's new names of Redis directives load
// and are written back under the Redis name, which both implementations
// load; Valkey-only directives keep their line.
func TestValkeyAliasesRewrite(t *testing.T) {
	in := "primaryauth \"pw\"\nbio-cpulist \"0-1\"\nenable-debug-assert yes\nsentinel monitor m 127.0.0.1 6379 2\n"
	c := mustParse(t, in)
	got := string(RewriteContent([]byte(in), c))
	for _, want := range []string{"masterauth \"pw\"\n", "bio_cpulist \"0-1\"\n", "enable-debug-assert yes\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("rewrite lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "primaryauth") {
		t.Errorf("alias kept:\n%s", got)
	}
}

// TestRebootOptionName: the reboot period keeps the directive name the
// file used (Valkey 8's primary-… or Redis' master-…).
func TestRebootOptionName(t *testing.T) {
	for _, name := range []string{"primary-reboot-down-after-period", "master-reboot-down-after-period"} {
		in := "sentinel monitor m 127.0.0.1 6379 2\nsentinel " + name + " m 5000\n"
		c := mustParse(t, in)
		if c.Master("m").MasterRebootDownAfterMillis != 5000 {
			t.Fatalf("%s: period %d", name, c.Master("m").MasterRebootDownAfterMillis)
		}
		got := string(RewriteContent([]byte(in), c))
		if !strings.Contains(got, "sentinel "+name+" m 5000\n") || strings.Count(got, "reboot-down-after-period") != 1 {
			t.Errorf("%s: rewrite\n%s", name, got)
		}
	}
	_, err := Parse(strings.NewReader("sentinel monitor m 127.0.0.1 6379 2\nsentinel primary-reboot-down-after-period m -1\n"), "s.conf")
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Msg != msgNegTime {
		t.Fatalf("negative period: %v", err)
	}
}

// TestLoglevelNothingLikeValkey: `loglevel nothing` loads (Redis 7.2+,
// Valkey 8), and a bad level gets Valkey's fatal text.
func TestLoglevelNothingLikeValkey(t *testing.T) {
	bin := valkeySentinel(t)
	if _, err := Parse(strings.NewReader("loglevel nothing\n"), "s.conf"); err != nil {
		t.Fatal(err)
	}
	line, msg := binFatal(t, bin, "port 5\nloglevel loud\n")
	_, err := Parse(strings.NewReader("port 5\nloglevel loud\n"), "s.conf")
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Line != line || ce.Msg != msg {
		t.Fatalf("ours %v, valkey line %d %q", err, line, msg)
	}
}
