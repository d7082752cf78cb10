package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Writer writes config files atomically. The zero value is ready to use;
// Rename can be replaced in tests to simulate a file that cannot be renamed
// over (a bind-mounted single file gives EBUSY, another filesystem EXDEV).
type Writer struct {
	// Rename renames oldpath to newpath; nil means os.Rename.
	Rename func(oldpath, newpath string) error
}

// Rewrite rewrites the config file at path so that it holds c, keeping the
// user's lines and comments (see RewriteContent), atomically.
func Rewrite(path string, c *Config) error {
	return Writer{}.Rewrite(path, c)
}

// Rewrite is the package-level Rewrite using w to write the file.
func (w Writer) Rewrite(path string, c *Config) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("config: rewrite %s: %w", path, err)
	}
	st := rewrite(old, c)
	return w.write(path, st.writeTo)
}

// WriteFile replaces the content of path with data: write a temporary file
// <path>.XXXXXX in the same directory, fsync it, set its mode, rename it over
// path and fsync the directory. The mode is the existing file's mode (an
// operator who made the file 0600 because it holds passwords keeps it so),
// or 0644 &^ umask for a new file. A symlink is followed: its target is
// replaced and the link kept. When the rename fails with EBUSY or
// EXDEV, the file is rewritten in place instead: the whole new content is
// written over the old one, then the file is truncated to the new length
// and fsynced, so it is never left shorter than either version.
func (w Writer) WriteFile(path string, data []byte) error {
	return w.write(path, func(f io.Writer) (int64, error) {
		n, err := f.Write(data)
		return int64(n), err
	})
}

// write is WriteFile with the content produced by gen, which must write
// the same bytes each time it is called (it runs again for an in-place
// rewrite): a large config is streamed to the file, not held in memory.
func (w Writer) write(path string, gen func(io.Writer) (int64, error)) error {
	rename := w.Rename
	if rename == nil {
		rename = os.Rename
	}
	// Rewrite the target of a symlink and keep the link (Redis replaces
	// the link by a regular file, silently detaching the managed target).
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	mode := fs.FileMode(0o644) &^ umask()
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, base+".*")
	if err != nil {
		return fmt.Errorf("config: create temp file: %w", err)
	}
	tmpName := tmp.Name()
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmpName)
		}
	}()
	if _, err := gen(tmp); err != nil {
		return fmt.Errorf("config: write %s: %w", tmpName, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("config: fsync %s: %w", tmpName, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("config: chmod %s: %w", tmpName, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("config: close %s: %w", tmpName, err)
	}
	if err := rename(tmpName, path); err != nil {
		if !errors.Is(err, syscall.EBUSY) && !errors.Is(err, syscall.EXDEV) {
			return fmt.Errorf("config: rename %s: %w", tmpName, err)
		}
		if ierr := writeInPlace(path, gen); ierr != nil {
			return fmt.Errorf("config: rename failed (%v), in-place rewrite of %s: %w", err, path, ierr)
		}
		return nil // deferred cleanup removes the temp file
	}
	done = true
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("config: fsync dir %s: %w", dir, err)
	}
	return nil
}

// writeInPlace overwrites path with gen's content without ever leaving it
// shorter than the new content: write everything from offset 0, then
// truncate to the new length, then fsync.
func writeInPlace(path string, gen func(io.Writer) (int64, error)) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	n, err := gen(f) // a fresh O_WRONLY file writes from offset 0
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := f.Truncate(n); err != nil {
		return fmt.Errorf("truncate: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	return nil
}

// syncDir fsyncs a directory so a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// umask reads the process umask from /proc/self/status without changing it
// (syscall.Umask would race with other goroutines creating files); 022 when
// it cannot be read.
func umask() fs.FileMode {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0o022
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
			if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return fs.FileMode(n)
			}
		}
	}
	return 0o022
}
