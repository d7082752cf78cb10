package runtime

import (
	"testing"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/resp"
)

// TestRESP3RepliesFromMonitoredServers: an INFO reply of type verbatim (a
// server with client-default-resp 3, Redis 7.2 #10273) reaches the core as
// the same bulk text as a RESP2 one.
func TestRESP3RepliesFromMonitoredServers(t *testing.T) {
	text := "# Replication\r\nrole:master\r\n"
	got := coreValue(resp.Verbatim("txt", text))
	if got.Kind != core.KindBulk || got.Str != text {
		t.Fatalf("verbatim INFO -> %+v", got)
	}
	if b := coreValue(resp.Bulk(text)); b.Kind != got.Kind || b.Str != got.Str {
		t.Fatalf("bulk %+v, verbatim %+v", b, got)
	}
}
