package resp

import (
	"bytes"
	"strings"
	"testing"
)

// TestReleaseBetweenCommands: a Reader released between commands holds no
// buffer and reads on correctly, also a command split across the release;
// one with unread bytes keeps its buffer.
func TestReleaseBetweenCommands(t *testing.T) {
	var in bytes.Buffer
	r := NewReaderSize(&in, Limits{}, 64)
	for i, part := range []string{"*1\r\n$4\r\nPING\r\n", "*2\r\n$4\r\nECHO", "\r\n$2\r\nhi\r\n"} {
		in.WriteString(part)
		if err := r.fill(); err != nil {
			t.Fatal(err)
		}
		args, ok, _, err := r.ReadBufferedCommand()
		if err != nil {
			t.Fatal(err)
		}
		r.Release()
		if i == 1 {
			if ok || r.buf == nil {
				t.Fatalf("part %d: ok %v, buffer released with unread bytes", i, ok)
			}
			continue
		}
		if !ok || r.buf != nil {
			t.Fatalf("part %d: ok %v, buffer kept after the last command (%d bytes)", i, ok, len(r.buf))
		}
		if got := string(bytes.Join(args, []byte(" "))); got != map[int]string{0: "PING", 2: "ECHO hi"}[i] {
			t.Fatalf("part %d: args %q", i, got)
		}
	}
}

// TestReleaseAllocatesNothing: a release and the next read's acquire reuse
// the pooled buffer and its handle.
func TestReleaseAllocatesNothing(t *testing.T) {
	cmd := "*1\r\n$4\r\nPING\r\n"
	rd := strings.NewReader("")
	r := NewReaderSize(rd, Limits{}, 4096)
	step := func() {
		rd.Reset(cmd)
		if err := r.fill(); err != nil {
			t.Fatal(err)
		}
		if _, ok, _, err := r.ReadBufferedCommand(); !ok || err != nil {
			t.Fatalf("ok %v err %v", ok, err)
		}
		r.Release()
	}
	step()
	if n := testing.AllocsPerRun(100, step); n > 0 {
		t.Fatalf("%.1f allocations per release and reacquire, want 0", n)
	}
}

// TestReleaseBetweenValues: ReadValue (the replies a sentinel's links read)
// works on a released Reader: the first line takes a buffer from the pool.
// Before, a released Reader's first ReadValue failed with "read buffer
// full" (readLine grew the nil buffer to zero bytes).
func TestReleaseBetweenValues(t *testing.T) {
	var in bytes.Buffer
	r := NewReaderSize(&in, Limits{}, 64)
	want := []string{"PONG", "hello", "a"}
	for i, part := range []string{"+PONG\r\n", "$5\r\nhello\r\n", "*2\r\n$1\r\na\r\n:7\r\n"} {
		r.Release()
		if r.buf != nil {
			t.Fatalf("value %d: buffer kept by Release with nothing unread", i)
		}
		in.WriteString(part)
		v, err := r.ReadValue()
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		if v.Kind == KindArray {
			v = v.Elems[0]
		}
		if got, _ := v.Text(); got != want[i] {
			t.Fatalf("value %d: %q, want %q", i, got, want[i])
		}
	}
}

// TestNewReaderTakesNoBuffer: a new Reader holds no read buffer until its
// first read, which takes one (from the pool when one was released): a
// server's connection accepted in a burst of thousands holds only its
// Reader until its first command arrives. Before, NewReaderSize allocated
// the buffer at once (4 KiB per accepted connection on a server).
func TestNewReaderTakesNoBuffer(t *testing.T) {
	var r *Reader
	var in bytes.Buffer
	if n := testing.AllocsPerRun(10, func() { r = NewReaderSize(&in, Limits{}, 4096) }); n > 1 {
		t.Fatalf("%.0f allocations per NewReaderSize, want 1 (the Reader)", n)
	}
	if r.buf != nil {
		t.Fatalf("new Reader holds a %d-byte buffer", len(r.buf))
	}
	in.WriteString("*1\r\n$4\r\nPING\r\n")
	args, err := r.ReadCommand()
	if err != nil || len(args) != 1 || string(args[0]) != "PING" {
		t.Fatalf("ReadCommand = %q, %v", args, err)
	}
	if len(r.buf) != 4096 {
		t.Fatalf("buffer of %d bytes after the first read, want 4096", len(r.buf))
	}
}
