package config

import (
	"crypto/tls"
	"errors"
	"strings"
	"testing"
)

// TestTLSDirectives: the TLS directives Go can honour are mapped; those it
// cannot are a startup error naming file and line (docs/security.md).
func TestTLSDirectives(t *testing.T) {
	tests := []struct {
		line    string
		wantErr string // substring; "" = accepted
		check   func(o TLSOptions) bool
	}{
		{`tls-protocols "TLSv1.2 TLSv1.3"`, "", func(o TLSOptions) bool { return o.MinVersion == tls.VersionTLS12 && o.MaxVersion == tls.VersionTLS13 }},
		{`tls-protocols TLSv1.3`, "", func(o TLSOptions) bool { return o.MinVersion == tls.VersionTLS13 && o.MaxVersion == tls.VersionTLS13 }},
		{`tls-protocols "tlsv1.1 TLSv1.2"`, "", func(o TLSOptions) bool { return o.MinVersion == tls.VersionTLS11 && o.MaxVersion == tls.VersionTLS12 }},
		{`tls-protocols "TLSv1 TLSv1.3"`, "contiguous range", nil},
		{`tls-protocols SSLv3`, "Invalid tls-protocols specified", nil},
		{`tls-ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384`, "", func(o TLSOptions) bool {
			return len(o.CipherSuites) == 2 && o.CipherSuites[0] == tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
		}},
		{`tls-ciphers DEFAULT`, "", func(o TLSOptions) bool { return o.CipherSuites == nil }},
		{`tls-ciphers HIGH:!aNULL`, `"HIGH" is not a cipher`, nil},
		{`tls-ciphers DHE-RSA-AES128-GCM-SHA256`, "is not a cipher", nil},
		{`tls-ciphersuites TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256`, "", nil},
		{`tls-ciphersuites TLS_AES_256_GCM_SHA384`, "cannot restrict them", nil},
		{`tls-prefer-server-ciphers yes`, "", nil},
		{`tls-prefer-server-ciphers no`, "", nil}, // accepted: real Sentinel writes it back (docs/security.md)
		{`tls-key-file-pass secret`, "cannot load encrypted private keys", nil},
		{`tls-client-key-file-pass secret`, "cannot load encrypted private keys", nil},
		{`tls-session-caching no`, "", func(o TLSOptions) bool { return !o.SessionCaching }},
		{`tls-session-cache-timeout 60`, "", func(o TLSOptions) bool { return o.SessionCaching && o.SessionTimeout == 60 }},
		{`tls-ca-cert-dir /etc/ssl/certs`, "", func(o TLSOptions) bool { return o.CACertDir == "/etc/ssl/certs" }},
		{`tls-client-cert-file /c.pem`, "", func(o TLSOptions) bool { return o.ClientCertFile == "/c.pem" }},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			c, err := Parse(strings.NewReader("port 26379\n"+tt.line+"\n"), "sentinel.conf")
			if tt.wantErr != "" {
				var ce *ConfigError
				if !errors.As(err, &ce) || ce.Line != 2 || !strings.Contains(ce.Msg, tt.wantErr) {
					t.Fatalf("Parse = %v, want an error at line 2 containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if tt.check != nil && !tt.check(c.Server.TLS()) {
				t.Fatalf("TLS() = %+v", c.Server.TLS())
			}
		})
	}
}
