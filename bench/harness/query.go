package harness

import (
	"errors"
	"fmt"
	"net"
	"time"
)

// ErrUnexpectedReply is returned when a sentinel's reply does not have the
// shape real Sentinel gives it.
var ErrUnexpectedReply = errors.New("unexpected reply")

// queryTimeout bounds every single administrative query to a sentinel.
const queryTimeout = 2 * time.Second

// MasterAddr returns the "ip:port" a sentinel gives for master name
// (SENTINEL GET-MASTER-ADDR-BY-NAME).
func MasterAddr(c *Conn, name string) (string, error) {
	v, err := c.Do(queryTimeout, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name)
	if err != nil {
		return "", err
	}
	return parseMasterAddr(v)
}

func parseMasterAddr(v any) (string, error) {
	if e, ok := v.(RedisError); ok {
		return "", e
	}
	a, ok := v.([]any)
	if !ok || len(a) != 2 {
		return "", fmt.Errorf("get-master-addr-by-name: %w: %v", ErrUnexpectedReply, v)
	}
	ip, ok1 := a[0].(string)
	port, ok2 := a[1].(string)
	if !ok1 || !ok2 {
		return "", fmt.Errorf("get-master-addr-by-name: %w: %v", ErrUnexpectedReply, v)
	}
	return net.JoinHostPort(ip, port), nil
}

// Master returns the SENTINEL MASTER <name> map.
func Master(c *Conn, name string) (map[string]string, error) {
	v, err := c.Do(queryTimeout, "SENTINEL", "MASTER", name)
	if err != nil {
		return nil, err
	}
	if e, ok := v.(RedisError); ok {
		return nil, fmt.Errorf("sentinel master %s: %w", name, e)
	}
	m, err := flatMap(v)
	if err != nil {
		return nil, fmt.Errorf("sentinel master %s: %w", name, err)
	}
	return m, nil
}

// Masters returns the SENTINEL MASTERS list of maps.
func Masters(c *Conn, timeout time.Duration) ([]map[string]string, error) {
	v, err := c.Do(timeout, "SENTINEL", "MASTERS")
	if err != nil {
		return nil, err
	}
	if e, ok := v.(RedisError); ok {
		return nil, fmt.Errorf("sentinel masters: %w", e)
	}
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("sentinel masters: %w: %T", ErrUnexpectedReply, v)
	}
	out := make([]map[string]string, 0, len(a))
	for _, e := range a {
		m, err := flatMap(e)
		if err != nil {
			return nil, fmt.Errorf("sentinel masters: %w", err)
		}
		out = append(out, m)
	}
	return out, nil
}

// flatMap turns a flat [k1 v1 k2 v2 ...] array of strings into a map.
func flatMap(v any) (map[string]string, error) {
	a, ok := v.([]any)
	if !ok || len(a)%2 != 0 {
		return nil, fmt.Errorf("%w: not a flat map: %T", ErrUnexpectedReply, v)
	}
	m := make(map[string]string, len(a)/2)
	for i := 0; i < len(a); i += 2 {
		k, ok1 := a[i].(string)
		val, ok2 := a[i+1].(string)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%w: non-string map entry", ErrUnexpectedReply)
		}
		m[k] = val
	}
	return m, nil
}

// ask opens a connection, runs fn and closes it.
func ask[T any](addr string, fn func(*Conn) (T, error)) (T, error) {
	var zero T
	c, err := Dial(addr, time.Second)
	if err != nil {
		return zero, err
	}
	defer c.Close()
	return fn(c)
}
