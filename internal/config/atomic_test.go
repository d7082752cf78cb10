package config

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFile(t *testing.T) {
	failWith := func(errno syscall.Errno) func(string, string) error {
		return func(o, n string) error { return &os.LinkError{Op: "rename", Old: o, New: n, Err: errno} }
	}
	cases := []struct {
		name    string
		old     string // "" = file does not exist
		mode    fs.FileMode
		rename  func(string, string) error
		wantErr error
		want    string // content after the call
	}{
		{name: "new file", want: "new content\n"},
		{name: "replace longer", old: strings.Repeat("old line\n", 50), mode: 0o600, want: "new content\n"},
		{name: "replace shorter", old: "x\n", mode: 0o640, want: "new content\n"},
		{name: "EBUSY falls back in place", old: strings.Repeat("old\n", 40), mode: 0o600, rename: failWith(syscall.EBUSY), want: "new content\n"},
		{name: "EXDEV falls back in place", old: "o\n", mode: 0o644, rename: failWith(syscall.EXDEV), want: "new content\n"},
		{name: "other rename error is returned", old: "keep\n", mode: 0o644, rename: failWith(syscall.EACCES), wantErr: syscall.EACCES, want: "keep\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "sentinel.conf")
			if tc.old != "" {
				if err := os.WriteFile(path, []byte(tc.old), tc.mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tc.mode); err != nil {
					t.Fatal(err)
				}
			}
			err := Writer{Rename: tc.rename}.WriteFile(path, []byte("new content\n"))
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			got, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if string(got) != tc.want {
				t.Errorf("content %q, want %q", got, tc.want)
			}
			st, _ := os.Stat(path)
			wantMode := tc.mode
			if tc.old == "" {
				wantMode = 0o644 &^ umask()
			}
			if st.Mode().Perm() != wantMode {
				t.Errorf("mode %v, want %v", st.Mode().Perm(), wantMode)
			}
			if names := listDir(t, dir); len(names) != 1 {
				t.Errorf("temp files left behind: %v", names)
			}
		})
	}
}

func TestRewriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sentinel.conf")
	in := "# mine\nsentinel monitor m 127.0.0.1 6379 2\n"
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Sentinel.MyID = fixedID
	if err := Rewrite(path, c); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Sentinel.MyID != fixedID || back.Master("m") == nil {
		t.Fatalf("reloaded: %+v", back.Sentinel)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), in) {
		t.Errorf("user lines moved:\n%s", b)
	}
	if err := Rewrite(filepath.Join(dir, "missing-dir", "x.conf"), c); err == nil {
		t.Errorf("rewrite into a missing directory succeeded")
	}
}

func TestUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	if got := umask(); got != 0o027 {
		t.Fatalf("umask() = %o, want 027", got)
	}
}

// TestWriteFileBindMounted uses a real single-file bind mount (root only),
// where rename(2) over the file fails with EBUSY.
func TestWriteFileBindMounted(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "outside.conf"), filepath.Join(dir, "sentinel.conf")
	old := strings.Repeat("sentinel monitor m 127.0.0.1 6379 2\n", 20)
	for _, p := range []string{src, dst} {
		if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("mount", "--bind", src, dst).CombinedOutput(); err != nil {
		t.Skipf("cannot bind-mount (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dst).Run() })
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(probe, dst); !errors.Is(err, syscall.EBUSY) {
		t.Fatalf("rename over a bind-mounted file: %v, want EBUSY", err)
	}
	if err := (Writer{}).WriteFile(dst, []byte("short\n")); err != nil {
		t.Fatalf("WriteFile on a bind-mounted file: %v", err)
	}
	for _, p := range []string{dst, src} {
		b, err := os.ReadFile(p)
		if err != nil || string(b) != "short\n" {
			t.Errorf("%s = %q, %v", p, b, err)
		}
	}
}

func TestWriteFileFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "managed", "real.conf")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "sentinel.conf")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := (Writer{}).WriteFile(link, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Fatalf("target = %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Fatalf("target mode %v", fi.Mode().Perm())
	}
	if names := listDir(t, filepath.Dir(target)); len(names) != 1 {
		t.Fatalf("temp files left: %v", names)
	}
}
