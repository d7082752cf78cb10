package ops

import (
	"testing"
	"time"
)

func TestParseEvent(t *testing.T) {
	t.Parallel()
	now := time.Unix(100, 0)
	tests := []struct {
		channel, payload        string
		typ, inst, addr, master string
		from, to                string
	}{
		{"+sdown", "master mym 127.0.0.1 6379", "master", "mym", "127.0.0.1:6379", "mym", "", ""},
		{"+odown", "master mym 127.0.0.1 6379 #quorum 2/2", "master", "mym", "127.0.0.1:6379", "mym", "", ""},
		{"+selected-slave", "slave 127.0.0.1:6380 127.0.0.1 6380 @ mym 127.0.0.1 6379", "slave", "127.0.0.1:6380", "127.0.0.1:6380", "mym", "", ""},
		{"+sentinel", "sentinel abc 10.0.0.1 26379 @ other 10.0.0.9 6379", "sentinel", "abc", "10.0.0.1:26379", "other", "", ""},
		{"+switch-master", "mym 127.0.0.1 6379 127.0.0.1 6380", "master", "mym", "127.0.0.1:6380", "mym", "127.0.0.1:6379", "127.0.0.1:6380"},
		{"+new-epoch", "7", "", "", "", "", "", ""},
		{"+tilt", "#tilt mode entered", "", "", "", "", "", ""},
		{"+switch-master", "mym 1.2.3.4", "", "", "", "mym", "", ""},
		{"+sdown", "", "", "", "", "", "", ""},
		{"+sdown", "slave x y", "", "", "", "", "", ""},
	}
	for _, tc := range tests {
		e := ParseEvent(now, "s1", tc.channel, tc.payload)
		if e.InstanceType != tc.typ || e.Instance != tc.inst || e.Addr != tc.addr || e.MasterName != tc.master {
			t.Errorf("%s %q: got type=%q inst=%q addr=%q master=%q", tc.channel, tc.payload, e.InstanceType, e.Instance, e.Addr, e.MasterName)
		}
		from, to, ok := e.SwitchAddrs()
		if from != tc.from || to != tc.to || ok != (tc.from != "") {
			t.Errorf("%s %q: SwitchAddrs = %q %q %v", tc.channel, tc.payload, from, to, ok)
		}
		if e.Source != "s1" || !e.Time.Equal(now) || e.Type != tc.channel || e.Payload != tc.payload {
			t.Errorf("%s: metadata not kept: %+v", tc.channel, e)
		}
	}
}

func TestEventColour(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e    Event
		want string
	}{
		{Event{Type: "+sdown"}, colRed},
		{Event{Type: "-failover-abort-no-good-slave"}, colRed},
		{Event{Type: "+switch-master"}, colGreen},
		{Event{Type: "-odown"}, colGreen},
		{Event{Type: "+elected-leader"}, colYellow},
		{Event{Type: "+slave"}, colYellow},
		{Event{Type: "+sentinel"}, colDim},
		{Event{Type: "link-down", Meta: true}, colRed},
		{Event{Type: "link-up", Meta: true}, colDim},
	}
	for _, tc := range tests {
		if got := eventColour(tc.e); got != tc.want {
			t.Errorf("%s: colour %q, want %q", tc.e.Type, got, tc.want)
		}
	}
}
