package ops

import (
	"fmt"
	"io"
	"strings"
)

// ANSI colours used by the event printer.
const (
	colReset  = "\x1b[0m"
	colRed    = "\x1b[31m"
	colGreen  = "\x1b[32m"
	colYellow = "\x1b[33m"
	colCyan   = "\x1b[36m"
	colDim    = "\x1b[2m"
)

// eventColour picks a colour for an event type: red for failures, green for
// recoveries and the switch, yellow for failover progress, dim for the rest.
func eventColour(e Event) string {
	t := e.Type
	switch {
	case e.Meta && t == "link-down":
		return colRed
	case e.Meta:
		return colDim
	case t == "+sdown" || t == "+odown" || strings.HasPrefix(t, "-failover-abort") || t == "+tilt" || strings.HasPrefix(t, "-script"):
		return colRed
	case t == "-sdown" || t == "-odown" || t == "+switch-master" || t == "+failover-end" || t == "-tilt":
		return colGreen
	case strings.Contains(t, "failover") || strings.Contains(t, "slave") || strings.Contains(t, "leader") || t == "+new-epoch" || t == "+config-update-from":
		return colYellow
	}
	return colDim
}

// EventPrinter writes events and timeline steps, one line each.
type EventPrinter struct {
	W     io.Writer
	Color bool
}

func (p *EventPrinter) paint(col, s string) string {
	if !p.Color {
		return s
	}
	return col + s + colReset
}

// Event prints one event: time with ms, source sentinel, type, payload.
func (p *EventPrinter) Event(e Event) {
	typ := e.Type
	if e.Meta {
		typ = "[" + typ + "]"
	}
	fmt.Fprintf(p.W, "%s  %-21s %s %s\n", e.Time.Format("15:04:05.000"), e.Source, p.paint(eventColour(e), fmt.Sprintf("%-34s", typ)), e.Payload)
}

// Step prints one timeline milestone of failover f.
func (p *EventPrinter) Step(s Step, f *Failover) {
	line := fmt.Sprintf("%s  timeline %s: %-30s +%.0f ms since first event", s.At.Format("15:04:05.000"), f.Master, s.Type, ms(s.Since))
	if f.Complete && s.Type == "+switch-master" {
		line += fmt.Sprintf(" (%s -> %s)", f.From, f.To)
	}
	fmt.Fprintln(p.W, p.paint(colCyan, line))
}
