package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// subscriber is a connection in PSUBSCRIBE * mode.
type subscriber struct {
	s  *side
	cl *client
}

// subscribe opens a PSUBSCRIBE * connection in the given protocol.
func subscribe(t *testing.T, s *side, proto int) *subscriber {
	t.Helper()
	cl := dialSide(t, s)
	if proto == 3 {
		cl.do("HELLO", "3")
	}
	cl.do("PSUBSCRIBE", "*")
	return &subscriber{s: s, cl: cl}
}

// event is one published message.
type event struct {
	raw  string // normalised rendering of the whole pmessage
	typ  string // channel = event type
	body string // normalised message
}

// until reads events until stop returns true for one or the deadline
// passes; it returns everything read (the stopping event included).
func (sb *subscriber) until(t *testing.T, d time.Duration, stop func(event) bool) []event {
	t.Helper()
	deadline := time.Now().Add(d)
	var out []event
	for time.Now().Before(deadline) {
		v, err := sb.cl.read(time.Until(deadline))
		if err != nil {
			t.Fatalf("%s: waiting for events (got %d): %v", sb.s.name, len(out), err)
		}
		if v.Kind != resp.KindArray && v.Kind != resp.KindPush || len(v.Elems) != 4 {
			t.Fatalf("%s: unexpected message %s", sb.s.name, sb.s.render(v))
		}
		ch, _ := v.Elems[2].Text()
		msg, _ := v.Elems[3].Text()
		e := event{raw: sb.s.render(v), typ: ch, body: sb.s.norm(msg)}
		out = append(out, e)
		if stop(e) {
			return out
		}
	}
	t.Fatalf("%s: events: deadline passed (got %d)", sb.s.name, len(out))
	return nil
}

// filter keeps the events whose type is in types.
func filter(evs []event, types ...string) []event {
	var out []event
	for _, e := range evs {
		for _, ty := range types {
			if e.typ == ty {
				out = append(out, e)
			}
		}
	}
	return out
}

func rawOf(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(e.raw + "\n")
	}
	return b.String()
}
