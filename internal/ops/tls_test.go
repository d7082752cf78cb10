package ops

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestStatusOverTLS talks to a real redis-sentinel that only listens on a
// TLS port and requires client certificates: the --tls flags must reach
// every connection to the sentinel.
func TestStatusOverTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	t.Parallel()
	files := testutil.GenerateTLS(t)
	m := testutil.StartRedis(t)
	s := testutil.StartTLSSentinel(t, files, testutil.SentinelConf("mym", m.Port, 1, 5000, 60000))
	ctx := context.Background()
	tests := []struct {
		name string
		o    ConnOptions
		ok   bool
	}{
		{"tls with CA and client cert", ConnOptions{TLS: true, TLSCA: files.CA, TLSCert: files.Cert, TLSKey: files.Key}, true},
		{"tls without client cert is refused", ConnOptions{TLS: true, TLSCA: files.CA}, false},
		{"plain is refused", ConnOptions{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Sentinels, o.Timeout = []string{s.Addr()}, time.Second
			views, err := Gather(ctx, &o, "mym")
			if err != nil {
				t.Fatal(err)
			}
			v := views[0]
			if tc.ok {
				if v.Error != "" || len(v.Masters) != 1 || masterAddr(v.Masters[0].Master) != m.Addr() {
					t.Fatalf("view over TLS = %+v", v)
				}
				return
			}
			if v.Error == "" {
				t.Fatalf("connection without the right TLS settings succeeded: %+v", v)
			}
			if !strings.Contains(v.Error, s.Addr()) {
				t.Errorf("error lacks the sentinel address: %s", v.Error)
			}
		})
	}
}
