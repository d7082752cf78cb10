package harness

import (
	"sync"
	"time"
)

// agreePoller asks every sentinel for the master's address every
// agreePollInterval and records the first moment they all give the same
// address, different from the old one.
type agreePoller struct {
	conns  []*Conn
	name   string
	old    string
	start  chan time.Time
	quit   chan struct{}
	found  chan time.Time
	wg     sync.WaitGroup
	closed sync.Once
}

func startAgreePoller(addrs []string, name, old string) (*agreePoller, error) {
	p := &agreePoller{name: name, old: old, start: make(chan time.Time, 1), quit: make(chan struct{}), found: make(chan time.Time, 1)}
	for _, a := range addrs {
		c, err := Dial(a, time.Second)
		if err != nil {
			p.closeConns()
			return nil, err
		}
		p.conns = append(p.conns, c)
	}
	p.wg.Add(1)
	go p.loop()
	return p, nil
}

func (p *agreePoller) begin(t0 time.Time) { p.start <- t0 }

func (p *agreePoller) loop() {
	defer p.wg.Done()
	select {
	case <-p.start:
	case <-p.quit:
		return
	}
	tick := time.NewTicker(agreePollInterval)
	defer tick.Stop()
	for {
		if p.agree() {
			p.found <- time.Now()
			return
		}
		select {
		case <-tick.C:
		case <-p.quit:
			return
		}
	}
}

func (p *agreePoller) agree() bool {
	first := ""
	for _, c := range p.conns {
		a, err := MasterAddr(c, p.name)
		if err != nil || a == p.old || (first != "" && a != first) {
			return false
		}
		first = a
	}
	return true
}

// wait returns when the sentinels agree (the time they did) or the
// deadline passes (zero time).
func (p *agreePoller) wait(deadline time.Time) time.Time {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case at := <-p.found:
		return at
	case <-t.C:
		return time.Time{}
	}
}

func (p *agreePoller) stop() {
	p.closed.Do(func() { close(p.quit) })
	p.wg.Wait()
	p.closeConns()
}

func (p *agreePoller) closeConns() {
	for _, c := range p.conns {
		_ = c.Close()
	}
}
