package ops

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"
)

// BindConnFlags registers the connection flags shared by every sentinelctl
// operator command on fs and returns the options they fill.
func BindConnFlags(fs *pflag.FlagSet) *ConnOptions {
	o := &ConnOptions{}
	fs.StringArrayVar(&o.Sentinels, "sentinel", []string{DefaultSentinel}, "sentinel host:port (repeatable)")
	fs.StringVar(&o.Username, "user", "", "ACL user for the sentinels")
	fs.StringVar(&o.Password, "password", "", "password for the sentinels")
	fs.StringVar(&o.NodeUsername, "master-user", "", "ACL user for masters and replicas")
	fs.StringVar(&o.NodePassword, "master-password", "", "password for masters and replicas")
	fs.BoolVar(&o.TLS, "tls", false, "connect with TLS")
	fs.StringVar(&o.TLSCA, "tls-ca", "", "PEM file of CA certificates to trust")
	fs.StringVar(&o.TLSCert, "tls-cert", "", "PEM client certificate")
	fs.StringVar(&o.TLSKey, "tls-key", "", "PEM client key")
	fs.BoolVar(&o.TLSSkipVerify, "tls-skip-verify", false, "do not verify server certificates (testing only)")
	fs.DurationVar(&o.Timeout, "timeout", DefaultTimeout, "timeout of each request")
	return o
}

// ErrUnknownClient is returned for a --client value that names no factory.
var ErrUnknownClient = errors.New("unknown --client (want gosentinel or go-redis)")

// ClientByName returns the factory for a --client flag value.
func ClientByName(name string) (ClientFactory, error) {
	f, ok := ClientFactories[name]
	if !ok {
		return nil, fmt.Errorf("%q: %w", name, ErrUnknownClient)
	}
	return f, nil
}
