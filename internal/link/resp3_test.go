package link

import (
	"testing"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// TestHelloAsPush: a hello message arriving as a RESP3 push (Redis 7.2
// #10273) is recognised like the RESP2 array form; other kinds are not.
func TestHelloAsPush(t *testing.T) {
	for _, v := range []resp.Value{
		resp.Push(resp.Bulk("message"), resp.Bulk("__sentinel__:hello"), resp.Bulk("payload")),
		resp.Array(resp.Bulk("message"), resp.Bulk("__sentinel__:hello"), resp.Bulk("payload")),
	} {
		ch, msg, ok := pubsubMessage(v)
		if !ok || ch != "__sentinel__:hello" || msg != "payload" {
			t.Fatalf("%v: %q %q %v", v.Kind, ch, msg, ok)
		}
	}
	if _, _, ok := pubsubMessage(resp.Map(resp.Bulk("message"), resp.Bulk("x"))); ok {
		t.Fatal("map accepted as a message")
	}
}
