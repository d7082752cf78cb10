package runtime

import (
	"crypto/tls"
	"encoding/binary"
	"time"

	"github.com/gosentinel/gosentinel/internal/config"
)

// applyTLSOptions honours the TLS directives of config.TLSOptions on a
// server or client configuration (docs/security.md "TLS directives"):
// tls-protocols as a min..max version range, tls-ciphers as Go cipher
// suites, tls-session-caching no as no session tickets, and
// tls-session-cache-timeout as the maximum age of a resumed session (Go
// keeps no server-side cache, so tls-session-cache-size has nothing to
// bound). tls-ciphersuites is accepted by the config parser only in the
// value Go applies anyway; tls-prefer-server-ciphers is always "yes" in Go
// (a "no" line is accepted because real Sentinel writes it back).
func applyTLSOptions(tc *tls.Config, o config.TLSOptions) {
	tc.MinVersion, tc.MaxVersion = o.MinVersion, o.MaxVersion
	tc.CipherSuites = o.CipherSuites
	if !o.SessionCaching {
		tc.SessionTicketsDisabled = true
		return
	}
	maxAge := time.Duration(o.SessionTimeout) * time.Second
	// The ticket carries its creation time; older tickets are not resumed.
	tc.WrapSession = func(cs tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
		ss.Extra = append(ss.Extra, binary.BigEndian.AppendUint64(nil, uint64(time.Now().Unix())))
		return tc.EncryptTicket(cs, ss)
	}
	tc.UnwrapSession = func(identity []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
		ss, err := tc.DecryptTicket(identity, cs)
		if ss == nil || err != nil {
			return nil, err
		}
		if len(ss.Extra) == 0 || len(ss.Extra[len(ss.Extra)-1]) != 8 {
			return nil, nil
		}
		born := time.Unix(int64(binary.BigEndian.Uint64(ss.Extra[len(ss.Extra)-1])), 0)
		if time.Since(born) > maxAge {
			return nil, nil // expired: a full handshake
		}
		return ss, nil
	}
}
