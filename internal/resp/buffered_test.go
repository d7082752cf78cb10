package resp

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// chunked reads at most n bytes per call from src.
type chunked struct {
	src io.Reader
	n   int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.src.Read(p)
}

// readAllBuffered drives r like the server's raw read path: commands that
// are buffered first, FillFrom when more bytes are needed, ReadCommand for
// a command that does not fit the buffer and once the input has ended.
func readAllBuffered(r *Reader, src io.Reader) ([][]string, error) {
	var out [][]string
	add := func(args [][]byte) {
		cmd := make([]string, len(args))
		for i, a := range args {
			cmd[i] = string(a)
		}
		out = append(out, cmd)
	}
	for {
		args, ok, state, err := r.ReadBufferedCommand()
		if err != nil {
			return out, err
		}
		if ok {
			add(args)
			continue
		}
		if state == BufferedSlow {
			args, err := r.ReadCommand()
			if err != nil {
				return out, err
			}
			add(args)
			continue
		}
		if _, _, err := r.FillFrom(src.Read); err != nil {
			rest, err := readAll(r)
			return append(out, rest...), err
		}
	}
}

// TestReadBufferedCommandMatchesReadCommand runs the ReadCommand table
// through the buffered path with every chunking and a small and a default
// buffer: same commands, same error.
func TestReadBufferedCommandMatchesReadCommand(t *testing.T) {
	for _, tc := range readCommandCases() {
		for _, size := range []int{64, 4096} {
			for _, chunk := range []int{1, 3, 17, 1000, 1 << 20} {
				t.Run(fmt.Sprintf("%s/buf%d/chunk%d", tc.name, size, chunk), func(t *testing.T) {
					src := &chunked{src: strings.NewReader(tc.in), n: chunk}
					r := NewReaderSize(src, tc.lim, size)
					r.SetUnauthenticated(tc.unauth)
					got, err := readAllBuffered(r, src)
					if tc.err == "" {
						if !errors.Is(err, io.EOF) {
							t.Fatalf("err = %v, want io.EOF", err)
						}
					} else if err == nil || err.Error() != tc.err {
						t.Fatalf("err = %v, want %q", err, tc.err)
					}
					if len(got) != len(tc.want) {
						t.Fatalf("got %d commands %q, want %d %q", len(got), got, len(tc.want), tc.want)
					}
					for i := range got {
						if strings.Join(got[i], "\x00") != strings.Join(tc.want[i], "\x00") {
							t.Fatalf("command %d = %q, want %q", i, got[i], tc.want[i])
						}
					}
				})
			}
		}
	}
}

// TestReadBufferedCommandDoesNotRead checks the point of the buffered
// path: a partial command is reported, never completed by a read.
func TestReadBufferedCommandDoesNotRead(t *testing.T) {
	r := NewReaderSize(readerFunc(func([]byte) (int, error) {
		t.Fatal("ReadBufferedCommand read from the connection")
		return 0, nil
	}), Limits{}, 64)
	in := "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$10\r\nabc"
	if _, _, err := r.FillFrom(strings.NewReader(in).Read); err != nil {
		t.Fatal(err)
	}
	args, ok, _, err := r.ReadBufferedCommand()
	if err != nil || !ok || len(args) != 1 || string(args[0]) != "PING" {
		t.Fatalf("first = %q %v %v", args, ok, err)
	}
	_, ok, state, err := r.ReadBufferedCommand()
	if err != nil || ok || state != BufferedNeedMore {
		t.Fatalf("partial: ok %v state %d err %v", ok, state, err)
	}
	// A bulk larger than the buffer can never be buffered: slow path.
	r2 := NewReaderSize(nil, Limits{}, 64)
	if _, _, err := r2.FillFrom(strings.NewReader("*1\r\n$100\r\nxx").Read); err != nil {
		t.Fatal(err)
	}
	if _, ok, state, err := r2.ReadBufferedCommand(); err != nil || ok || state != BufferedSlow {
		t.Fatalf("large bulk: ok %v state %d err %v", ok, state, err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
