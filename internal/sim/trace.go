package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// describeEvent renders an event for the trace.
func describeEvent(ev core.Event) string {
	switch e := ev.(type) {
	case core.Tick:
		return "tick"
	case core.LinkConnected:
		return fmt.Sprintf("connected link=%d conn=%d", e.Link, e.Conn)
	case core.LinkClosed:
		return fmt.Sprintf("closed link=%d conn=%d err=%v", e.Link, e.Conn, e.Err)
	case core.Reply:
		return fmt.Sprintf("reply link=%d conn=%d tag=%d %s", e.Link, e.Conn, e.Tag, describeValue(e.Value))
	case core.Message:
		return fmt.Sprintf("message link=%d conn=%d %s %q", e.Link, e.Conn, e.Channel, e.Payload)
	case core.Request:
		return fmt.Sprintf("request id=%d from=s%d %q", e.ID, e.Client, e.Args)
	case core.PersistDone:
		return fmt.Sprintf("persist-done seq=%d err=%v", e.Seq, e.Err)
	case core.ScriptDone:
		return fmt.Sprintf("script-done id=%d", e.ID)
	}
	return fmt.Sprintf("%T", ev)
}

// describeEffect renders an effect for the trace.
func describeEffect(ef core.Effect) string {
	switch e := ef.(type) {
	case core.Connect:
		return fmt.Sprintf("connect link=%d conn=%d %s %s %s", e.Link, e.Conn, e.Type, e.Role, fmtAddr(e.Addr))
	case core.Close:
		return fmt.Sprintf("close link=%d conn=%d", e.Link, e.Conn)
	case core.Send:
		return fmt.Sprintf("send link=%d conn=%d tag=%d %q", e.Link, e.Conn, e.Tag, e.Args)
	case core.Emit:
		return fmt.Sprintf("event %s %s", e.Type, e.Msg)
	case core.Log:
		return "log " + e.Msg
	case core.Persist:
		var b strings.Builder
		fmt.Fprintf(&b, "persist seq=%d current-epoch=%d", e.Seq, e.State.CurrentEpoch)
		for _, m := range e.State.Masters {
			fmt.Fprintf(&b, " %s=%s config-epoch=%d leader=%s@%d", m.Name, fmtAddr(m.Addr), m.ConfigEpoch, short(m.Leader), m.LeaderEpoch)
			if m.VoterFloor != 0 {
				fmt.Fprintf(&b, " voter-floor=%d+%d", m.VoterFloor, m.VoterFloorLeft)
			}
		}
		return b.String()
	case core.Respond:
		return fmt.Sprintf("respond id=%d %s", e.ID, describeValue(e.Value))
	case core.RunScript:
		return fmt.Sprintf("run-script %s %q", e.Path, e.Args)
	case core.Exit:
		return fmt.Sprintf("exit %d", e.Code)
	}
	return fmt.Sprintf("%T", ef)
}

// describeValue renders a reply compactly (INFO bodies shortened).
func describeValue(v core.Value) string {
	switch v.Kind {
	case core.KindStatus:
		return "+" + v.Str
	case core.KindError:
		return "-" + v.Str
	case core.KindInt:
		return ":" + strconv.FormatInt(v.Int, 10)
	case core.KindBulk:
		if len(v.Str) > 60 {
			return strconv.Quote(v.Str[:60]) + "…"
		}
		return strconv.Quote(v.Str)
	case core.KindNil, core.KindNilArray:
		return "(nil)"
	case core.KindArray, core.KindMap:
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = describeValue(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return "?"
}
