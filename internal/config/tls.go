package config

import (
	"crypto/tls"
	"fmt"
	"strconv"
	"strings"
)

// TLSOptions are the TLS directives beyond the certificate files, checked
// when the file is read (so a directive gosentinel cannot honour is a
// startup error with file and line, not a silent Go default). See
// docs/security.md "TLS directives".
type TLSOptions struct {
	MinVersion, MaxVersion uint16   // tls-protocols (default TLSv1.2 TLSv1.3)
	CipherSuites           []uint16 // tls-ciphers mapped to Go's IDs; nil: Go's defaults
	CACertDir              string   // tls-ca-cert-dir
	SessionCaching         bool     // tls-session-caching (default yes)
	SessionTimeout         int      // tls-session-cache-timeout in seconds (default 300)
	ClientCertFile         string   // tls-client-cert-file (outgoing links)
	ClientKeyFile          string   // tls-client-key-file
}

// TLS returns the TLS options of the configuration (validated by Parse).
func (s Server) TLS() TLSOptions {
	o := TLSOptions{MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS13, SessionCaching: true, SessionTimeout: 300}
	for _, d := range s.Other {
		v := ""
		if len(d.Args) > 0 {
			v = d.Args[0]
		}
		switch d.Name {
		case "tls-protocols":
			o.MinVersion, o.MaxVersion, _ = parseTLSProtocols(v)
		case "tls-ciphers":
			o.CipherSuites, _ = parseTLSCiphers(v)
		case "tls-ca-cert-dir":
			o.CACertDir = v
		case "tls-session-caching":
			o.SessionCaching = strings.EqualFold(v, "yes")
		case "tls-session-cache-timeout":
			o.SessionTimeout, _ = strconv.Atoi(v)
		case "tls-client-cert-file":
			o.ClientCertFile = v
		case "tls-client-key-file":
			o.ClientKeyFile = v
		}
	}
	return o
}

var tlsVersions = map[string]uint16{
	"tlsv1": tls.VersionTLS10, "tlsv1.1": tls.VersionTLS11, "tlsv1.2": tls.VersionTLS12, "tlsv1.3": tls.VersionTLS13,
}

// parseTLSProtocols reads tls-protocols ("TLSv1.2 TLSv1.3"): Go enables a
// contiguous range of versions, so a list with a hole is refused.
func parseTLSProtocols(v string) (lo, hi uint16, msg string) {
	if strings.TrimSpace(v) == "" {
		return tls.VersionTLS12, tls.VersionTLS13, "" // not set: Redis' default
	}
	seen := map[uint16]bool{}
	for _, p := range strings.Fields(v) {
		ver, ok := tlsVersions[strings.ToLower(p)]
		if !ok {
			return 0, 0, "Invalid tls-protocols specified"
		}
		seen[ver] = true
		if lo == 0 || ver < lo {
			lo = ver
		}
		hi = max(hi, ver)
	}
	if lo == 0 {
		return 0, 0, "Invalid tls-protocols specified"
	}
	for ver := lo; ver <= hi; ver++ {
		if !seen[ver] {
			return 0, 0, "tls-protocols must be a contiguous range of versions in gosentinel (Go's crypto/tls enables a min..max range, see docs/security.md)"
		}
	}
	return lo, hi, ""
}

// openSSLCiphers maps the OpenSSL names of the TLS ≤1.2 cipher suites that
// Go implements to Go's IDs.
var openSSLCiphers = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"ECDHE-ECDSA-AES128-SHA256":     tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-RSA-AES128-SHA256":       tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
	"AES128-SHA256":                 tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-RSA-DES-CBC3-SHA":        tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
	"DES-CBC3-SHA":                  tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA,
}

// parseTLSCiphers reads tls-ciphers (an OpenSSL cipher list, TLS ≤ 1.2).
// "DEFAULT" alone keeps Go's defaults; otherwise every element must be a
// cipher name Go implements. Keywords and operators ("HIGH", "!aNULL",
// "@STRENGTH") cannot be mapped exactly and are refused.
func parseTLSCiphers(v string) ([]uint16, string) {
	if v == "" || strings.EqualFold(strings.TrimSpace(v), "DEFAULT") {
		return nil, "" // "" is Redis' "not set"
	}
	var ids []uint16
	for _, name := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		id, ok := openSSLCiphers[strings.ToUpper(name)]
		if !ok {
			return nil, fmt.Sprintf("tls-ciphers: %q is not a cipher gosentinel can map to Go's crypto/tls (list OpenSSL cipher names such as ECDHE-RSA-AES128-GCM-SHA256, or DEFAULT; see docs/security.md)", name)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, "Failed to configure ciphers"
	}
	return ids, ""
}

// go13Suites are the TLS 1.3 suites Go always enables (it has no switch).
var go13Suites = []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}

// checkTLSDirective validates the TLS directives that Go may not be able
// to honour; "" means accepted.
func checkTLSDirective(name string, vals []string) string {
	v := ""
	if len(vals) > 0 {
		v = vals[0]
	}
	switch name {
	case "tls-protocols":
		_, _, msg := parseTLSProtocols(v)
		return msg
	case "tls-ciphers":
		_, msg := parseTLSCiphers(v)
		return msg
	case "tls-ciphersuites":
		if v == "" {
			return "" // not set
		}
		got := map[string]bool{}
		for _, s := range strings.Split(v, ":") {
			got[strings.ToUpper(strings.TrimSpace(s))] = true
		}
		for _, s := range go13Suites {
			if !got[s] || len(got) != len(go13Suites) {
				return "tls-ciphersuites: Go's crypto/tls always enables exactly " + strings.Join(go13Suites, ":") + " for TLS 1.3 and cannot restrict them; use that value or tls-protocols without TLSv1.3 (docs/security.md)"
			}
		}
	case "tls-key-file-pass", "tls-client-key-file-pass":
		if v != "" {
			return name + " is not supported by gosentinel: Go's crypto/tls cannot load encrypted private keys; decrypt the key file (openssl pkey -in key.pem -out plain.pem) and protect it with file permissions (docs/security.md)"
		}
	}
	return ""
}
