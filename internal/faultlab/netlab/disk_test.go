package netlab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSetReadOnly(t *testing.T) {
	_, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	dir := filepath.Join(t.TempDir(), "conf")
	p := startRedis(t, b, ProcSpec{BindSelf: []string{dir}})
	if r, err := redisCmd(a, b.Addr(6379), 5*time.Second, "SAVE"); err != nil || r != "+OK" {
		t.Fatalf("SAVE before: %q %v", r, err)
	}
	if err := p.SetReadOnly(dir, true); err != nil {
		t.Fatal(err)
	}
	if r, err := redisCmd(a, b.Addr(6379), 5*time.Second, "SAVE"); err != nil || !strings.HasPrefix(r, "-ERR") {
		t.Fatalf("SAVE into a read-only dir: want an error, got %q %v", r, err)
	}
	// Only the process's mount namespace is affected.
	if err := os.WriteFile(filepath.Join(dir, "outside"), []byte("x"), 0o644); err != nil {
		t.Fatalf("the dir must stay writable outside the process: %v", err)
	}
	if err := p.SetReadOnly(dir, false); err != nil {
		t.Fatal(err)
	}
	if r, err := redisCmd(a, b.Addr(6379), 5*time.Second, "SAVE"); err != nil || r != "+OK" {
		t.Fatalf("SAVE after rw: %q %v", r, err)
	}
	if err := p.SetReadOnly(filepath.Join(dir, "x"), true); err == nil {
		t.Fatal("SetReadOnly on a dir not in BindSelf succeeded")
	}
}

func TestFillDisk(t *testing.T) {
	l, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	dir := filepath.Join(t.TempDir(), "data")
	p := startRedis(t, b, ProcSpec{TmpfsDirs: []string{dir}, TmpfsSize: "1m"})
	if r, err := redisCmd(a, b.Addr(6379), 5*time.Second, "SAVE"); err != nil || r != "+OK" {
		t.Fatalf("SAVE before: %q %v", r, err)
	}
	heal, err := p.FillDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := redisCmd(a, b.Addr(6379), 5*time.Second, "SAVE"); err != nil || !strings.HasPrefix(r, "-ERR") {
		t.Fatalf("SAVE on a full disk: want an error, got %q %v", r, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := p.Exec(ctx, "dd", "if=/dev/zero", "of="+filepath.Join(dir, "probe"), "bs=4096", "count=1")
	if err == nil || !strings.Contains(string(out), "No space left on device") {
		t.Fatalf("write on a full disk: want ENOSPC, got %q %v", out, err)
	}
	if err := heal(); err != nil {
		t.Fatal(err)
	}
	if r, err := redisCmd(a, b.Addr(6379), 5*time.Second, "SAVE"); err != nil || r != "+OK" {
		t.Fatalf("SAVE after heal: %q %v", r, err)
	}
	// HealAll also undoes a full disk.
	if _, err := p.FillDisk(dir); err != nil {
		t.Fatal(err)
	}
	if err := l.HealAll(); err != nil {
		t.Fatal(err)
	}
	if r, err := redisCmd(a, b.Addr(6379), 5*time.Second, "SAVE"); err != nil || r != "+OK" {
		t.Fatalf("SAVE after HealAll: %q %v", r, err)
	}
}

func TestBindFileRenameIsBusy(t *testing.T) {
	_, hs := newLab(t, "a")
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(conf, []byte("port 26379\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := hs[0].Start(ProcSpec{Name: "holder", Argv: []string{"sleep", "3600"}, BindFiles: []string{conf}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tmp := filepath.Join(dir, "sentinel.conf.tmp")
	if err := os.WriteFile(tmp, []byte("port 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := p.Exec(ctx, "mv", tmp, conf)
	if err == nil || !strings.Contains(string(out), "busy") {
		t.Fatalf("rename over a bind-mounted file: want EBUSY, got %q %v", out, err)
	}
	if out, err := p.Exec(ctx, "sh", "-c", "echo 'port 2' > "+shq(conf)); err != nil {
		t.Fatalf("in-place write of a bind-mounted file must work: %q %v", out, err)
	}
	if b, _ := os.ReadFile(conf); string(b) != "port 2\n" {
		t.Fatalf("in-place write not visible outside: %q", b)
	}
}

// fsizeLimit reads the soft "Max file size" of pid from /proc/PID/limits.
func fsizeLimit(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "Max file size") {
			return strings.Fields(line)[3]
		}
	}
	t.Fatalf("no Max file size in %s", b)
	return ""
}

func TestLimitFileSize(t *testing.T) {
	_, hs := newLab(t, "a")
	dir := t.TempDir()
	// The shell ignores SIGXFSZ, so its write past the limit fails (EFBIG)
	// instead of killing it; the loop writes whenever "go" appears.
	script := `trap "" XFSZ; while :; do if [ -e go ]; then rm go; head -c 4096 /dev/zero > out; echo $? > rc.tmp; mv rc.tmp rc; fi; sleep 0.02; done`
	p, err := hs[0].Start(ProcSpec{Name: "writer", Argv: []string{"sh", "-c", script}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	before := fsizeLimit(t, p.PID)
	heal, err := p.LimitFileSize(1024)
	if err != nil {
		t.Fatal(err)
	}
	if got := fsizeLimit(t, p.PID); got != "1024" {
		t.Fatalf("limit %s, want 1024", got)
	}
	write := func() string {
		t.Helper()
		_ = os.Remove(filepath.Join(dir, "rc"))
		if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			if b, err := os.ReadFile(filepath.Join(dir, "rc")); err == nil {
				return strings.TrimSpace(string(b))
			}
			if time.Now().After(deadline) {
				t.Fatal("the writer never answered")
			}
			time.Sleep(10 * time.Millisecond) // the file is the writer's only signal
		}
	}
	if rc := write(); rc == "0" {
		t.Fatal("a 4 KiB write under a 1 KiB limit succeeded")
	}
	if err := heal(); err != nil {
		t.Fatal(err)
	}
	if got := fsizeLimit(t, p.PID); got != before {
		t.Fatalf("after heal: limit %s, want %s", got, before)
	}
	if rc := write(); rc != "0" {
		t.Fatalf("write after heal: exit %s", rc)
	}
}
