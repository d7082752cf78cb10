package ops

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultSentinel is the sentinel address used when none is given.
const DefaultSentinel = "127.0.0.1:26379"

// DefaultTimeout bounds every single request to a sentinel or a node.
const DefaultTimeout = 2 * time.Second

// ErrNoSentinels is returned when an operation is given no sentinel address.
var ErrNoSentinels = errors.New("no sentinel address given")

// ConnOptions says how to reach the sentinels and the data nodes.
//
// Sentinels and data nodes have separate credentials (as go-redis's
// FailoverOptions has SentinelUsername/SentinelPassword beside
// Username/Password): Username/Password authenticate to sentinels,
// NodeUsername/NodePassword to masters and replicas. TLS settings apply to
// both.
type ConnOptions struct {
	Sentinels     []string      // host:port of each sentinel, in the order to try
	Username      string        // ACL user for sentinels (empty: default user)
	Password      string        // password for sentinels
	NodeUsername  string        // ACL user for masters and replicas
	NodePassword  string        // password for masters and replicas
	TLS           bool          // use TLS
	TLSCA         string        // PEM file of CAs to trust (default: system pool)
	TLSCert       string        // PEM client certificate (with TLSKey)
	TLSKey        string        // PEM client key
	TLSSkipVerify bool          // do not verify the server certificate
	Timeout       time.Duration // per-request timeout (default DefaultTimeout)
}

func (o *ConnOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

func (o *ConnOptions) sentinels() ([]string, error) {
	if len(o.Sentinels) == 0 {
		return nil, ErrNoSentinels
	}
	return o.Sentinels, nil
}

// TLSConfig builds the TLS configuration, or returns nil when TLS is off.
func (o *ConnOptions) TLSConfig() (*tls.Config, error) {
	if !o.TLS {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.TLSSkipVerify} //nolint:gosec // operator's explicit choice
	if o.TLSCA != "" {
		pem, err := os.ReadFile(o.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("read --tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("read --tls-ca %s: no PEM certificate found", o.TLSCA)
		}
		cfg.RootCAs = pool
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return nil, errors.New("--tls-cert and --tls-key must be given together")
	}
	if o.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("load client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// baseOptions returns single-connection, no-retry options for addr.
func (o *ConnOptions) baseOptions(addr, user, pass string) (*redis.Options, error) {
	tc, err := o.TLSConfig()
	if err != nil {
		return nil, err
	}
	t := o.timeout()
	return &redis.Options{
		Addr:            addr,
		Username:        user,
		Password:        pass,
		TLSConfig:       tc,
		Protocol:        2,
		DisableIdentity: true,
		MaxRetries:      -1,
		DialerRetries:   1,
		DialTimeout:     t,
		ReadTimeout:     t,
		WriteTimeout:    t,
		PoolSize:        2,
	}, nil
}

// SentinelClient returns a go-redis client for the sentinel at addr.
func (o *ConnOptions) SentinelClient(addr string) (*redis.Client, error) {
	opt, err := o.baseOptions(addr, o.Username, o.Password)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opt), nil
}

// NodeClient returns a go-redis client for the master or replica at addr.
func (o *ConnOptions) NodeClient(addr string) (*redis.Client, error) {
	opt, err := o.baseOptions(addr, o.NodeUsername, o.NodePassword)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opt), nil
}
