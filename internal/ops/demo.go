package ops

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// DemoMaster is the master name the demo monitors.
const DemoMaster = "demo"

// ErrNoModule is returned when the demo must build gosentinel but is not run
// from inside the gosentinel module.
var ErrNoModule = errors.New("not inside the gosentinel module; give --sentinel-bin")

// DemoOptions configures the local demo.
type DemoOptions struct {
	SentinelBin string        // sentinel binary; "" builds ./cmd/gosentinel
	RedisServer string        // redis-server binary (default: from PATH)
	Wait        time.Duration // how long to wait for +switch-master (default 30 s)
	Out         io.Writer     // progress, timeline and figures
	Events      bool          // also print every sentinel event
	Color       bool          // colour events
	KeepDir     bool          // keep the temp dir (configs, logs) for inspection
	NewClient   ClientFactory // client the writes go through (default DefaultClientFactory)
}

// DemoReport is the outcome of a demo run.
type DemoReport struct {
	SentinelBin string       `json:"sentinel_bin"`
	Dir         string       `json:"dir"`
	Drill       *DrillReport `json:"drill,omitempty"`
}

// RunDemo starts a master, two replicas and three sentinels on loopback,
// writes through the client, kills the master, and reports the failover.
// Every process is killed and the temp dir removed before it returns, also
// when ctx is cancelled (Ctrl-C). It returns ErrFailoverIncomplete (with the
// report) when the sentinels did not complete the failover.
func RunDemo(ctx context.Context, d DemoOptions) (rep *DemoReport, err error) {
	if d.Out == nil {
		d.Out = io.Discard
	}
	if d.Wait <= 0 {
		d.Wait = 30 * time.Second
	}
	say := func(format string, args ...any) {
		fmt.Fprintf(d.Out, time.Now().Format("15:04:05.000")+"  "+format+"\n", args...)
	}
	dir, err := os.MkdirTemp("", "sentinelctl-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	rep = &DemoReport{Dir: dir}
	procs := &procSet{}
	defer func() {
		procs.killAll()
		if d.KeepDir {
			say("kept %s", dir)
			return
		}
		if rerr := os.RemoveAll(dir); rerr != nil && err == nil {
			err = fmt.Errorf("demo: remove %s: %w", dir, rerr)
		}
	}()

	if rep.SentinelBin, err = d.sentinelBinary(ctx, dir, say); err != nil {
		return rep, err
	}
	redisBin := d.RedisServer
	if redisBin == "" {
		if redisBin, err = exec.LookPath("redis-server"); err != nil {
			return rep, fmt.Errorf("demo: redis-server not found (apt-get install redis-server): %w", err)
		}
	}

	// A random password on the data nodes isolates the demo from other
	// sentinels on this machine: one still monitoring a dead master whose
	// port the kernel hands to us would otherwise "demote" our node.
	pass, err := randomPassword()
	if err != nil {
		return rep, err
	}
	master, replicas, err := startDataNodes(ctx, redisBin, dir, pass, procs, say)
	if err != nil {
		return rep, err
	}
	sentinels, err := startSentinels(ctx, rep.SentinelBin, dir, master.port, pass, procs, say)
	if err != nil {
		return rep, err
	}
	conn := &ConnOptions{Timeout: time.Second, NodePassword: pass}
	for _, s := range sentinels {
		conn.Sentinels = append(conn.Sentinels, s.addr())
	}
	say("waiting for the sentinels to discover each other and the replicas")
	if err := waitConverged(ctx, conn, len(replicas)); err != nil {
		return rep, fmt.Errorf("demo: sentinels did not converge with %s: %w", rep.SentinelBin, err)
	}

	say("writing through the client, then killing the master %s (PID %d)", master.addr(), master.cmd.Process.Pid)
	drill := DrillOptions{
		Conn: conn, Master: DemoMaster, Kill: true, Timeout: d.Wait, Progress: d.Out, NewClient: d.NewClient, MaxLost: -1,
		KillFunc: func() error { master.kill(); return nil },
	}
	if d.Events {
		pr := &EventPrinter{W: d.Out, Color: d.Color}
		drill.OnEvent = pr.Event
	}
	rep.Drill, err = RunDrill(ctx, drill)
	if err != nil && rep.Drill == nil {
		return rep, fmt.Errorf("demo: %w", err)
	}
	if err != nil {
		return rep, fmt.Errorf("demo with %s: %w", rep.SentinelBin, err)
	}
	return rep, nil
}

// sentinelBinary returns d.SentinelBin or builds ./cmd/gosentinel into dir.
func (d *DemoOptions) sentinelBinary(ctx context.Context, dir string, say func(string, ...any)) (string, error) {
	if d.SentinelBin != "" {
		p, err := exec.LookPath(d.SentinelBin)
		if err != nil {
			return "", fmt.Errorf("demo: --sentinel-bin: %w", err)
		}
		return p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(dir, "gosentinel")
	say("building gosentinel (go build ./cmd/gosentinel)")
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", out, "./cmd/gosentinel")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("demo: gosentinel does not build yet (%v):\n%s\nrun the same demo on real Sentinel with --sentinel-bin /usr/bin/redis-sentinel", err, strings.TrimSpace(string(b)))
	}
	return out, nil
}

// moduleRoot finds the directory of the gosentinel go.mod above the
// working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/gosentinel/gosentinel\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoModule
		}
		dir = parent
	}
}

func startDataNodes(ctx context.Context, bin, dir, pass string, procs *procSet, say func(string, ...any)) (*localProc, []*localProc, error) {
	var master *localProc
	var replicas []*localProc
	for i := 0; i < 3; i++ {
		port, err := freePort()
		if err != nil {
			return nil, nil, err
		}
		lines := []string{
			"port " + strconv.Itoa(port), "bind 127.0.0.1", "save \"\"", "appendonly no", "protected-mode no",
			"dir " + strconv.Quote(dir), "dbfilename dump-" + strconv.Itoa(port) + ".rdb",
			"logfile " + strconv.Quote(filepath.Join(dir, "redis-"+strconv.Itoa(port)+".log")),
			"repl-diskless-sync yes", "repl-diskless-sync-delay 0", "repl-ping-replica-period 1",
			"requirepass " + pass, "masterauth " + pass,
		}
		name := "master"
		if i > 0 {
			name = "replica" + strconv.Itoa(i)
			lines = append(lines, fmt.Sprintf("replicaof 127.0.0.1 %d", master.port))
		}
		conf := filepath.Join(dir, "redis-"+strconv.Itoa(port)+".conf")
		if err := os.WriteFile(conf, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			return nil, nil, fmt.Errorf("demo: %w", err)
		}
		p, err := startProc(name, bin, []string{conf}, dir, port)
		if err != nil {
			return nil, nil, fmt.Errorf("demo: %w", err)
		}
		procs.add(p)
		if err := pollUntil(ctx, 10*time.Second, p, name+" ready", func() error { return pingAddr(ctx, p.addr(), pass) }); err != nil {
			return nil, nil, fmt.Errorf("demo: %w", err)
		}
		say("started %s redis-server on %s (PID %d)", name, p.addr(), p.cmd.Process.Pid)
		if i == 0 {
			master = p
		} else {
			replicas = append(replicas, p)
		}
	}
	for _, r := range replicas {
		err := pollUntil(ctx, 15*time.Second, r, r.name+" linked to the master", func() error {
			info, err := nodeInfo(ctx, r.addr(), pass, "replication")
			if err != nil {
				return err
			}
			if !strings.Contains(info, "master_link_status:up") {
				return errors.New("master_link_status not up")
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("demo: %w", err)
		}
	}
	return master, replicas, nil
}

func startSentinels(ctx context.Context, bin, dir string, masterPort int, pass string, procs *procSet, say func(string, ...any)) ([]*localProc, error) {
	var out []*localProc
	for i := 1; i <= 3; i++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		conf := filepath.Join(dir, fmt.Sprintf("sentinel-%d.conf", port))
		body := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nlogfile %s\n"+
			"sentinel monitor %s 127.0.0.1 %d 2\n"+
			"sentinel down-after-milliseconds %s 1000\n"+
			"sentinel failover-timeout %s 10000\n"+
			"sentinel parallel-syncs %s 1\n"+
			"sentinel auth-pass %s %s\n",
			port, strconv.Quote(dir), strconv.Quote(filepath.Join(dir, fmt.Sprintf("sentinel-%d.log", port))),
			DemoMaster, masterPort, DemoMaster, DemoMaster, DemoMaster, DemoMaster, pass)
		if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		name := "sentinel" + strconv.Itoa(i)
		p, err := startProc(name, bin, []string{conf}, dir, port)
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		procs.add(p)
		if err := pollUntil(ctx, 10*time.Second, p, name+" ready", func() error { return pingAddr(ctx, p.addr(), "") }); err != nil {
			return nil, fmt.Errorf("demo: %s did not come up: %w", filepath.Base(bin), err)
		}
		say("started %s (%s) on %s (PID %d)", name, filepath.Base(bin), p.addr(), p.cmd.Process.Pid)
		out = append(out, p)
	}
	return out, nil
}

// waitConverged waits until every sentinel knows the two others and all
// replicas, so that killing the master can be repaired.
func waitConverged(ctx context.Context, o *ConnOptions, replicas int) error {
	want := len(o.Sentinels) - 1
	return pollUntil(ctx, 30*time.Second, nil, "sentinels converged", func() error {
		views, err := Gather(ctx, o, DemoMaster)
		if err != nil {
			return err
		}
		for _, v := range views {
			if v.Error != "" {
				return errors.New(v.Error)
			}
			if len(v.Masters) != 1 || v.Masters[0].Master == nil {
				return fmt.Errorf("sentinel %s does not describe %s", v.Addr, DemoMaster)
			}
			m := v.Masters[0].Master
			if n := atoi(m, "num-other-sentinels", -1); n != int64(want) {
				return fmt.Errorf("sentinel %s knows %d other sentinels, want %d", v.Addr, n, want)
			}
			if n := atoi(m, "num-slaves", -1); n != int64(replicas) {
				return fmt.Errorf("sentinel %s knows %d replicas, want %d", v.Addr, n, replicas)
			}
		}
		return nil
	})
}

func pingAddr(ctx context.Context, addr, pass string) error {
	o := &ConnOptions{Timeout: 500 * time.Millisecond, NodePassword: pass}
	c, err := o.NodeClient(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Ping(ctx).Err()
}

func nodeInfo(ctx context.Context, addr, pass, section string) (string, error) {
	o := &ConnOptions{Timeout: time.Second, NodePassword: pass}
	c, err := o.NodeClient(addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	return c.Info(ctx, section).Result()
}

// randomPassword returns 32 random hex characters.
func randomPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("demo: random password: %w", err)
	}
	return hex.EncodeToString(b), nil
}
