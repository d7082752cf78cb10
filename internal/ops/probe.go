package ops

import (
	"context"
	"fmt"
	"strconv"
	"sync"
)

// Check gathers the deployment's status through the sentinels, probes the
// data nodes and announced addresses directly, and lints the result.
func Check(ctx context.Context, o *ConnOptions, name string) (*CheckInput, []Finding, error) {
	st, _, err := GetStatus(ctx, o, name)
	if err != nil {
		return nil, nil, fmt.Errorf("check: %w", err)
	}
	in := &CheckInput{Status: st, Probes: map[string]*Probes{}}
	for i := range st.Masters {
		in.Probes[st.Masters[i].Name] = probeMaster(ctx, o, &st.Masters[i])
	}
	return in, Lint(in), nil
}

func probeMaster(ctx context.Context, o *ConnOptions, m *MasterStatus) *Probes {
	p := &Probes{MinReplicasToWrite: -1, ReplicaReadOnly: map[string]string{}, Unreachable: map[string]string{}}
	if m.Addr == "" {
		return p
	}
	if v, err := configGet(ctx, o, m.Addr, "min-replicas-to-write"); err != nil {
		p.MinReplicasError = err.Error()
	} else if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		p.MinReplicasToWrite = n
	} else {
		p.MinReplicasError = fmt.Sprintf("min-replicas-to-write = %q: not a number", v)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, r := range m.Replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := configGet(ctx, o, r.Addr, "replica-read-only")
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				p.ReplicaReadOnly[r.Addr] = v
			} else if isConnErr(err) {
				p.Unreachable[r.Addr] = err.Error()
			}
		}()
	}
	probe := func(addr string, sentinel bool) {
		defer wg.Done()
		if err := answers(ctx, o, addr, sentinel); err != nil {
			mu.Lock()
			p.Unreachable[addr] = err.Error()
			mu.Unlock()
		}
	}
	wg.Add(1)
	go probe(m.Addr, false)
	for _, s := range m.Peers {
		if !s.IsReporter {
			wg.Add(1)
			go probe(s.Addr, true)
		}
	}
	wg.Wait()
	return p
}

// configGet reads one parameter with CONFIG GET on a data node.
func configGet(ctx context.Context, o *ConnOptions, addr, param string) (string, error) {
	c, err := o.NodeClient(addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	m, err := c.ConfigGet(ctx, param).Result()
	if err != nil {
		return "", fmt.Errorf("CONFIG GET %s on %s: %w", param, addr, err)
	}
	v, ok := m[param]
	if !ok {
		return "", fmt.Errorf("CONFIG GET %s on %s: parameter not returned", param, addr)
	}
	return v, nil
}

// answers reports whether addr answers PING at all; an error reply (e.g.
// NOAUTH) counts as an answer, only transport failures do not.
func answers(ctx context.Context, o *ConnOptions, addr string, sentinel bool) error {
	var err error
	c, err := o.NodeClient(addr)
	if sentinel {
		c, err = o.SentinelClient(addr)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil && isConnErr(err) {
		return fmt.Errorf("PING %s: %w", addr, err)
	}
	return nil
}
