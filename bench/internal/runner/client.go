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

// Client runs the client benchmark (our client vs go-redis's failover
// client) with `GOSENTINEL_BENCH=1 go test ./bench/clientbench -run <run> -v`
// and wraps the Markdown table it prints into a section. It returns
// ok=false when the package does not exist yet.
func Client(ctx context.Context, root, run string, runs int, out io.Writer) (harness.Section, bool) {
	matches, _ := filepath.Glob(filepath.Join(root, ClientBenchDir, "*_test.go"))
	if len(matches) == 0 {
		fmt.Fprintf(out, "\n== Client failover ==\n  %s: not present, skipped\n", ClientBenchDir)
		return harness.Section{}, false
	}
	s := harness.Section{ID: "client", Title: "Client: our client vs go-redis NewFailoverClient", Runs: runs,
		Measured: time.Now().UTC().Format("2006-01-02 15:04 UTC")}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	args := []string{"test", "./" + ClientBenchDir, "-run", run, "-v", "-count=1", "-timeout", "15m"}
	cmd := exec.CommandContext(ctx, goBin(), args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), ClientBenchEnv+"=1", fmt.Sprintf("GOSENTINEL_BENCH_ROUNDS=%d", runs))
	b, err := cmd.CombinedOutput()
	fmt.Fprintf(out, "\n== Client failover (go %s) ==\n%s", strings.Join(args, " "), b)
	s.Notes = append(s.Notes, fmt.Sprintf("Measured by `%s=1 go %s` (package owned by the client; see docs/client.md).", ClientBenchEnv, strings.Join(args, " ")))
	table := ExtractTable(string(b))
	switch {
	case err != nil:
		s.Notes = append(s.Notes, fmt.Sprintf("The client benchmark failed: %s.", firstLine(err.Error())))
	case table == "":
		s.Notes = append(s.Notes, "The client benchmark printed no Markdown table.")
	}
	s.Markdown = table
	return s, true
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
