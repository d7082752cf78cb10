package workload

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// subscribe keeps a subscription to channels (patterns when pattern) on
// target t until ctx ends, reconnecting after errors and after two silent
// timeouts in a row (a ping that is not answered). sentinelEvents says
// whether t is a sentinel (events) or a redis (hellos).
func (s *Sampler) subscribe(ctx context.Context, t Target, password string, channels []string, pattern bool) {
	defer s.wg.Done()
	c := s.client(t, password)
	defer c.Close()
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		var ps *redis.PubSub
		if pattern {
			ps = c.PSubscribe(ctx, channels...)
		} else {
			ps = c.Subscribe(ctx, channels...)
		}
		stop := context.AfterFunc(ctx, func() { _ = ps.Close() })
		err := s.receive(ctx, t, ps, pattern, &backoff)
		stop()
		_ = ps.Close()
		if ctx.Err() != nil {
			return
		}
		s.record(Event{At: time.Now(), Sentinel: t.Name, Channel: ChanDisconnected, Payload: errString(err), Via: t.Name})
		timer := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		if backoff < time.Second {
			backoff *= 2
		}
	}
}

// receive reads messages until an error or two unanswered pings.
func (s *Sampler) receive(ctx context.Context, t Target, ps *redis.PubSub, sentinel bool, backoff *time.Duration) error {
	silent := 0
	for {
		m, err := ps.ReceiveTimeout(ctx, 2*time.Second)
		now := time.Now()
		if err != nil {
			var ne net.Error
			if ctx.Err() == nil && errors.As(err, &ne) && ne.Timeout() && silent < 2 {
				silent++
				if perr := ps.Ping(ctx); perr != nil {
					return perr
				}
				continue
			}
			return err
		}
		silent = 0
		switch m := m.(type) {
		case *redis.Subscription:
			*backoff = 50 * time.Millisecond
			s.record(Event{At: now, Sentinel: t.Name, Channel: ChanSubscribed, Payload: m.Kind + " " + m.Channel, Via: t.Name})
		case *redis.Message:
			if sentinel {
				s.sentinelEvent(now, t, m)
			} else {
				s.hello(now, t, m)
			}
		}
	}
}

// sentinelEvent records one event; +new-epoch also updates the sentinel's
// current epoch.
func (s *Sampler) sentinelEvent(now time.Time, t Target, m *redis.Message) {
	if m.Channel == "+new-epoch" {
		if e, err := strconv.ParseInt(strings.TrimSpace(m.Payload), 10, 64); err == nil {
			s.mu.Lock()
			s.epoch[t.Name] = e
			s.mu.Unlock()
		}
	}
	s.record(Event{At: now, Sentinel: t.Name, Channel: m.Channel, Payload: m.Payload})
}

// hello records a hello heard on redis t and updates its sender's current
// epoch. Payload: ip,port,runid,current_epoch,master_name,master_ip,
// master_port,master_config_epoch. The sender is named by its address
// (a sentinel target) or runid (SENTINEL MYID), else by "ip:port".
func (s *Sampler) hello(now time.Time, t Target, m *redis.Message) {
	f := strings.Split(m.Payload, ",")
	if len(f) != 8 {
		return
	}
	addr := net.JoinHostPort(f[0], f[1])
	s.mu.Lock()
	name, ok := s.byAddr[addr]
	if !ok {
		name, ok = s.runids[f[2]]
	}
	if !ok {
		name = addr
	}
	if e, err := strconv.ParseInt(f[3], 10, 64); err == nil {
		s.epoch[name] = e
	}
	s.mu.Unlock()
	s.record(Event{At: now, Sentinel: name, Channel: HelloChannel, Payload: m.Payload, Via: t.Name})
}

func (s *Sampler) record(e Event) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
