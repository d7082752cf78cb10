package harness

import (
	"bytes"
	"io"
	"strconv"
	"testing"
)

// loopReader serves the same bytes forever, so a benchmark can read replies
// without a network.
type loopReader struct {
	data []byte
	off  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.data[l.off:])
	l.off = (l.off + n) % len(l.data)
	return n, nil
}

var _ io.Reader = (*loopReader)(nil)

// benchReplies are the replies the harness reads most: a pmessage of the
// event watcher, a get-master-addr-by-name answer and a SENTINEL MASTER map.
func benchReplies() map[string][]byte {
	var master [][]byte
	for i := 0; i < 20; i++ {
		master = append(master, []byte("field-"+strconv.Itoa(i)), []byte("value-"+strconv.Itoa(i)))
	}
	var m bytes.Buffer
	m.WriteString("*" + strconv.Itoa(len(master)) + "\r\n")
	for _, f := range master {
		m.WriteString("$" + strconv.Itoa(len(f)) + "\r\n")
		m.Write(f)
		m.WriteString("\r\n")
	}
	return map[string][]byte{
		"pmessage":    EncodeCommand("pmessage", "*", "+sdown", "master mymaster 127.0.0.1 6379"),
		"master-addr": EncodeCommand("127.0.0.1", "6379"),
		"master":      m.Bytes(),
	}
}

func BenchmarkConnRead(b *testing.B) {
	for name, reply := range benchReplies() {
		b.Run(name, func(b *testing.B) {
			c := connFrom(&loopReader{data: bytes.Repeat(reply, 64)})
			b.ReportAllocs()
			b.SetBytes(int64(len(reply)))
			for i := 0; i < b.N; i++ {
				if _, err := c.Read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
