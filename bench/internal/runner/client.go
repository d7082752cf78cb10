package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/bench/harness"
)

// ClientBenchDir is the client benchmark package, owned by the client
// engineer; benchall runs it when it exists.
const ClientBenchDir = "bench/clientbench"

// ClientBenchEnv is the environment variable that enables the failover
// comparison of the client benchmark.
const ClientBenchEnv = "GOSENTINEL_BENCH"

// logPrefix is what `go test -v` puts before a t.Log line.
var logPrefix = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: ?`)

// SentinelBinEnv is the variable testutil.StartSentinelCluster reads to
// choose the sentinel binary of the client benchmark's clusters.
const SentinelBinEnv = "GOSENTINEL_SENTINEL_BIN"

// Client runs the client benchmark (our client vs go-redis's failover
// client) with `GOSENTINEL_BENCH=1 go test ./bench/clientbench -run <run> -v`
// once per available sentinel implementation (GOSENTINEL_SENTINEL_BIN), and
// wraps the Markdown tables it prints into a section. It returns ok=false
// when the package does not exist yet.
func Client(ctx context.Context, root, run string, runs int, impls []harness.Impl, out io.Writer) (harness.Section, bool) {
	matches, _ := filepath.Glob(filepath.Join(root, ClientBenchDir, "*_test.go"))
	if len(matches) == 0 {
		fmt.Fprintf(out, "\n== Client failover ==\n  %s: not present, skipped\n", ClientBenchDir)
		return harness.Section{}, false
	}
	s := harness.Section{ID: "client", Title: "Client: our client vs go-redis NewFailoverClient", Runs: runs,
		Measured: time.Now().UTC().Format("2006-01-02 15:04 UTC")}
	args := []string{"test", "./" + ClientBenchDir, "-run", run, "-v", "-count=1", "-timeout", "15m"}
	s.Notes = append(s.Notes, fmt.Sprintf("Measured by `%s=1 %s=<sentinel> go %s` (package owned by the client; see docs/client.md), once with each sentinel implementation.", ClientBenchEnv, SentinelBinEnv, strings.Join(args, " ")))
	var md strings.Builder
	for _, im := range impls {
		if !im.Available() {
			fmt.Fprintf(&md, "**Sentinels: %s** — not available (%s).\n\n", im.Name, firstLine(im.Unavailable))
			continue
		}
		table, err := clientOnce(ctx, root, args, runs, im, out)
		fmt.Fprintf(&md, "**Sentinels: %s**", im.Name)
		if err != nil {
			fmt.Fprintf(&md, " — the client benchmark failed (%s); its table, if any, is shown as printed", firstLine(err.Error()))
		}
		md.WriteString("\n\n")
		if table == "" {
			table = "(no table printed)\n"
		}
		md.WriteString(table)
		md.WriteString("\n")
	}
	s.Markdown = md.String()
	return s, true
}

func clientOnce(ctx context.Context, root string, args []string, runs int, im harness.Impl, out io.Writer) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin(), args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), ClientBenchEnv+"=1",
		fmt.Sprintf("GOSENTINEL_BENCH_ROUNDS=%d", runs), SentinelBinEnv+"="+im.Bin)
	b, err := cmd.CombinedOutput()
	fmt.Fprintf(out, "\n== Client failover with %s sentinels (go %s) ==\n%s", im.Name, strings.Join(args, " "), b)
	if err != nil {
		return ExtractTable(string(b)), fmt.Errorf("client benchmark with %s: %w", im.Name, err)
	}
	return ExtractTable(string(b)), nil
}

// ExtractTable returns the Markdown table lines ("| ... |") of go test -v
// output, with the t.Log prefixes removed.
func ExtractTable(out string) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		l := logPrefix.ReplaceAllString(line, "")
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "|") && strings.HasSuffix(l, "|") {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func goBin() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "/usr/local/go/bin/go"
}
