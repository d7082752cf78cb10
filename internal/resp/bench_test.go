package resp

import (
	"bytes"
	"io"
	"strconv"
	"testing"
)

// repeatReader serves the same bytes forever.
type repeatReader struct {
	data []byte
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.data[r.off:])
		n += c
		r.off = (r.off + c) % len(r.data)
	}
	return n, nil
}

func BenchmarkReadCommand3Args(b *testing.B) {
	one := encodeCommand([][]byte{[]byte("SENTINEL"), []byte("get-master-addr-by-name"), []byte("mymaster")})
	r := NewReader(&repeatReader{data: bytes.Repeat(one, 64)})
	b.SetBytes(int64(len(one)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ReadCommand(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadInlinePing(b *testing.B) {
	r := NewReader(&repeatReader{data: bytes.Repeat([]byte("PING\r\n"), 64)})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ReadCommand(); err != nil {
			b.Fatal(err)
		}
	}
}

// sentinelMasterReply is shaped like a SENTINEL MASTER reply: 30 pairs of
// bulk strings.
func sentinelMasterReply() Value {
	kv := make([]Value, 0, 60)
	for i := range 30 {
		kv = append(kv, Bulk("field-name-"+strconv.Itoa(i)), Bulk(strconv.Itoa(i*1000)))
	}
	return Map(kv...)
}

func benchmarkWriteMaster(b *testing.B, proto int) {
	v := sentinelMasterReply()
	w := NewWriter(io.Discard)
	w.SetProto(proto)
	b.ReportAllocs()
	for b.Loop() {
		w.WriteValue(v)
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteSentinelMasterRESP2(b *testing.B) { benchmarkWriteMaster(b, RESP2) }
func BenchmarkWriteSentinelMasterRESP3(b *testing.B) { benchmarkWriteMaster(b, RESP3) }

func BenchmarkReadValueSentinelMaster(b *testing.B) {
	wire := AppendValue(nil, sentinelMasterReply(), RESP3)
	r := NewReader(&repeatReader{data: bytes.Repeat(wire, 16)})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ReadValue(); err != nil {
			b.Fatal(err)
		}
	}
}
