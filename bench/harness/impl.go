package harness

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// Impl is one sentinel implementation under test: a binary started as
// `<Bin> <sentinel.conf>`, like redis-sentinel.
type Impl struct {
	// Name labels the implementation in results ("redis-sentinel", "gosentinel").
	Name string
	// Bin is the path of the binary.
	Bin string
	// Unavailable, when not empty, says why this implementation cannot be
	// measured; its figures are then reported as not available.
	Unavailable string
}

// Available reports whether the implementation can be measured.
func (i Impl) Available() bool { return i.Unavailable == "" && i.Bin != "" }

// Names of the two implementations compared side by side.
const (
	RealName = "redis-sentinel"
	OursName = "gosentinel"
)

// RealSentinel returns Debian's redis-sentinel, at bin or found on PATH.
func RealSentinel(bin string) Impl {
	if bin == "" {
		bin = "redis-sentinel"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return Impl{Name: RealName, Bin: bin, Unavailable: fmt.Sprintf("not found: %v", err)}
	}
	return Impl{Name: RealName, Bin: p}
}

// ErrNotAvailable is wrapped by the errors of ResolveOurs.
var ErrNotAvailable = errors.New("not available")

// ResolveOurs returns the gosentinel implementation. When bin is empty it
// builds ./cmd/gosentinel from the module at repoRoot into outDir. Either
// way the binary must pass Smoke; otherwise the returned Impl carries the
// reason in Unavailable.
func ResolveOurs(ctx context.Context, repoRoot, bin, outDir string) Impl {
	if bin == "" {
		b, err := BuildOurs(ctx, repoRoot, outDir)
		if err != nil {
			return Impl{Name: OursName, Unavailable: reason(err)}
		}
		bin = b
	}
	if err := Smoke(bin); err != nil {
		return Impl{Name: OursName, Bin: bin, Unavailable: reason(err)}
	}
	return Impl{Name: OursName, Bin: bin}
}

// reason is the message of an ErrNotAvailable error without its prefix.
func reason(err error) string {
	return strings.TrimPrefix(err.Error(), ErrNotAvailable.Error()+": ")
}

// BuildOurs runs `go build -o <outDir>/gosentinel ./cmd/gosentinel` in
// repoRoot (through testutil.BuildGosentinelContext) and returns the
// binary's path.
func BuildOurs(ctx context.Context, repoRoot, outDir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	out, err := testutil.BuildGosentinelContext(ctx, repoRoot, outDir)
	var be *testutil.BuildError
	if errors.As(err, &be) {
		return "", fmt.Errorf("%w: go build ./cmd/gosentinel failed: %s", ErrNotAvailable, firstLine(be.Output, be.Err))
	}
	if err != nil {
		return "", err
	}
	return out, nil
}

func firstLine(s string, err error) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return err.Error()
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// Smoke starts bin on a config that monitors a live redis-server and checks
// that it answers PING and SENTINEL MASTER with the master's name. A
// binary that cannot do this is not measured.
func Smoke(bin string) error {
	env := NewEnv(nil)
	err := env.Run(func() error {
		m := testutil.StartRedis(env)
		conf, port, log := writeSentinelConf(env, testutil.SentinelConf("smoke", m.Port, 1, 5000, 60000))
		// StartSentinelConf calls Fatalf when the binary does not answer
		// PING; Run turns that into an error.
		p := testutil.StartSentinelConf(env, bin, conf, port, log)
		mm, err := ask(p.Addr(), func(c *Conn) (map[string]string, error) { return Master(c, "smoke") })
		if err != nil {
			return fmt.Errorf("%w: SENTINEL MASTER smoke: %v", ErrNotAvailable, err)
		}
		if mm["name"] != "smoke" {
			return fmt.Errorf("%w: SENTINEL MASTER smoke: name is %q", ErrNotAvailable, mm["name"])
		}
		return nil
	})
	if errors.Is(err, ErrAborted) {
		return fmt.Errorf("%w: %s", ErrNotAvailable, firstLine(err.Error(), err))
	}
	return err
}
