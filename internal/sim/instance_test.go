package sim

import (
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/core"
)

// testWorld builds a world with a master and two replicas, no sentinel
// started, and no event run.
func testWorld(t *testing.T) *World {
	t.Helper()
	o := NewOptions(1)
	o.Replicas, o.Priority, o.Announced = 2, []int{100, 0}, []bool{true, false}
	o.SentinelAnnounce = false // seed 1 draws it since round seven
	return newWorld(o, false)
}

// testConn opens a fake established connection from sentinel 0 to node target.
func testConn(w *World, target int) *conn {
	c := &conn{owner: w.sent[0], target: target, established: true, typ: core.ConnCmd}
	w.conns = append(w.conns, c)
	return c
}

func TestInstanceCommands(t *testing.T) {
	cases := []struct {
		name  string
		cmds  [][]string
		want  []string // describeValue of each reply
		check func(t *testing.T, w *World)
	}{
		{
			name: "ping and setname",
			cmds: [][]string{{"PING"}, {"CLIENT", "SETNAME", "sentinel-abc-cmd"}, {"client", "setname"}},
			want: []string{"+PONG", "+OK", "-ERR wrong number of arguments for 'client|setname' command"},
		},
		{
			name: "slaveof no one on a replica promotes it",
			cmds: [][]string{{"SLAVEOF", "NO", "ONE"}},
			want: []string{"+OK"},
			check: func(t *testing.T, w *World) {
				if in := w.inst[1]; in.role != roleMaster || in.masterHost != "" {
					t.Fatalf("replica is %s of %q after SLAVEOF NO ONE", in.role, in.masterHost)
				}
			},
		},
		{
			name: "replicaof to the same master is a no-op",
			cmds: [][]string{{"REPLICAOF", "10.0.0.1", "6379"}, {"REPLICAOF", "10.0.0.3", "6379"}, {"SLAVEOF", "10.0.0.3", "x"}},
			want: []string{"+OK Already connected to specified master", "+OK", "-ERR Invalid master port"},
			check: func(t *testing.T, w *World) {
				if in := w.inst[1]; in.masterHost != "10.0.0.3" || in.linkUp {
					t.Fatalf("replica follows %s link %v", in.masterHost, in.linkUp)
				}
			},
		},
		{
			name: "transaction applies at EXEC, CONFIG REWRITE persists the role",
			cmds: [][]string{{"MULTI"}, {"SLAVEOF", "NO", "ONE"}, {"CONFIG", "REWRITE"}, {"CLIENT", "KILL", "TYPE", "normal"}, {"EXEC"}},
			want: []string{"+OK", "+QUEUED", "+QUEUED", "+QUEUED", "[+OK +OK :0]"},
			check: func(t *testing.T, w *World) {
				if in := w.inst[1]; in.role != roleMaster || in.confRole != roleMaster {
					t.Fatalf("role %s, config role %s", in.role, in.confRole)
				}
			},
		},
		{
			name: "transaction without CONFIG REWRITE is lost on restart",
			cmds: [][]string{{"MULTI"}, {"SLAVEOF", "NO", "ONE"}, {"EXEC"}},
			want: []string{"+OK", "+QUEUED", "[+OK]"},
			check: func(t *testing.T, w *World) {
				in := w.inst[1]
				w.crashInstance(in)
				w.restartInstance(in)
				if in.role != roleSlave || in.masterHost != "10.0.0.1" {
					t.Fatalf("after restart: %s of %s", in.role, in.masterHost)
				}
			},
		},
		{
			name: "exec and discard without multi",
			cmds: [][]string{{"EXEC"}, {"DISCARD"}, {"MULTI"}, {"MULTI"}, {"DISCARD"}},
			want: []string{"-ERR EXEC without MULTI", "-ERR DISCARD without MULTI", "+OK", "-ERR MULTI calls can not be nested", "+OK"},
		},
		{
			name: "subscribed connections only take pub/sub commands",
			cmds: [][]string{{"SUBSCRIBE", core.HelloChannel}, {"INFO"}, {"PING"}},
			want: []string{`["subscribe" "__sentinel__:hello" :1]`,
				"-ERR Can't execute 'info': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context",
				`["pong" ""]`},
		},
		{
			name: "unknown and odd input never panics",
			cmds: [][]string{{}, {"SENTINEL", "masters"}, {"SLAVEOF"}, {"CLIENT"}, {"CLIENT", "KILL", "TYPE", "master"}, {"PUBLISH", "x"}},
			want: []string{"-ERR empty command", "-ERR unknown command 'SENTINEL', with args beginning with: ",
				"-ERR wrong number of arguments for 'slaveof' command", "-ERR wrong number of arguments for 'client' command",
				"-ERR Unknown client type 'master'", "-ERR wrong number of arguments for 'publish' command"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := testWorld(t)
			c := testConn(w, 1)
			for i, cmd := range tc.cmds {
				got := describeValue(w.execute(w.inst[1], c, cmd))
				if got != tc.want[i] {
					t.Fatalf("%q: got %s, want %s", cmd, got, tc.want[i])
				}
			}
			if tc.check != nil {
				tc.check(t, w)
			}
		})
	}
}

func TestLoadingAfterRestart(t *testing.T) {
	w := testWorld(t)
	in := w.inst[0]
	w.crashInstance(in)
	w.restartInstance(in)
	c := testConn(w, 0)
	if got := describeValue(w.execute(in, c, []string{"PING"})); !strings.HasPrefix(got, "-LOADING") {
		t.Fatalf("PING while loading: %s", got)
	}
	if v := w.execute(in, c, []string{"INFO"}); !strings.Contains(v.Str, "loading:1") {
		t.Fatalf("INFO while loading lacks loading:1")
	}
	// A transaction queued while loading is aborted at EXEC.
	w.execute(in, c, []string{"MULTI"})
	w.execute(in, c, []string{"SLAVEOF", "10.0.0.2", "6379"})
	if got := describeValue(w.execute(in, c, []string{"EXEC"})); !strings.HasPrefix(got, "-EXECABORT") {
		t.Fatalf("EXEC while loading: %s", got)
	}
	if in.role != roleMaster {
		t.Fatal("aborted transaction changed the role")
	}
	w.sch.now = in.loadingUntil
	if got := describeValue(w.execute(in, c, []string{"PING"})); got != "+PONG" {
		t.Fatalf("PING after loading: %s", got)
	}
}

func TestInfoRendering(t *testing.T) {
	w := testWorld(t)
	w.inst[1].linkUp = true
	w.inst[2].offset = 42
	w.sch.now = 5000
	master := w.renderInfo(w.inst[0])
	for _, want := range []string{"run_id:" + w.inst[0].runID, "role:master", "connected_slaves:1",
		"slave0:ip=10.0.0.2,port=6379,state=online"} {
		if !strings.Contains(master, want+"\r\n") && !strings.Contains(master, want+",") {
			t.Errorf("master INFO lacks %q:\n%s", want, master)
		}
	}
	up := w.renderInfo(w.inst[1])
	down := w.renderInfo(w.inst[2])
	for _, tc := range []struct {
		info string
		want []string
		not  []string
	}{
		{up, []string{"role:slave", "master_host:10.0.0.1", "master_port:6379", "master_link_status:up", "slave_priority:100", "replica_announced:1"}, []string{"master_link_down_since_seconds"}},
		{down, []string{"master_link_status:down", "master_link_down_since_seconds:-1", "slave_priority:0", "replica_announced:0", "slave_repl_offset:42"}, nil},
	} {
		for _, want := range tc.want {
			if !strings.Contains(tc.info, want+"\r\n") {
				t.Errorf("replica INFO lacks %q:\n%s", want, tc.info)
			}
		}
		for _, not := range tc.not {
			if strings.Contains(tc.info, not) {
				t.Errorf("replica INFO has %q:\n%s", not, tc.info)
			}
		}
	}
	w.inst[1].linkUp, w.inst[1].downSince = false, 2000
	if info := w.renderInfo(w.inst[1]); !strings.Contains(info, "master_link_down_since_seconds:3\r\n") {
		t.Errorf("link down since 2000 at 5000: %s", info)
	}
}

func TestClientKillSparesCallerAndOtherType(t *testing.T) {
	w := testWorld(t)
	self := testConn(w, 0)
	other := testConn(w, 0)
	sub := testConn(w, 0)
	sub.subscribed = true
	elsewhere := testConn(w, 1)
	if got := describeValue(w.execute(w.inst[0], self, []string{"CLIENT", "KILL", "TYPE", "normal"})); got != ":1" {
		t.Fatalf("killed %s, want 1", got)
	}
	if self.closed || !other.closed || sub.closed || elsewhere.closed {
		t.Fatalf("closed: self %v other %v pubsub %v elsewhere %v", self.closed, other.closed, sub.closed, elsewhere.closed)
	}
	if got := describeValue(w.execute(w.inst[0], self, []string{"CLIENT", "KILL", "TYPE", "pubsub"})); got != ":1" || !sub.closed {
		t.Fatalf("pubsub kill: %s, closed %v", got, sub.closed)
	}
}

func TestPublishReachesSubscribersOfLinkedReplicas(t *testing.T) {
	w := testWorld(t)
	w.inst[1].linkUp = true // inst[2] is not linked: gets nothing
	subs := []*conn{testConn(w, 0), testConn(w, 1), testConn(w, 2)}
	for _, c := range subs {
		c.subscribed, c.channels = true, []string{core.HelloChannel}
	}
	pub := testConn(w, 0)
	if got := describeValue(w.execute(w.inst[0], pub, []string{"PUBLISH", core.HelloChannel, "x"})); got != ":1" {
		t.Fatalf("PUBLISH replied %s, want :1 (receivers on the master itself)", got)
	}
	if got := describeValue(w.execute(w.inst[0], pub, []string{"PUBLISH", "other", "x"})); got != ":0" {
		t.Fatalf("PUBLISH on another channel replied %s", got)
	}
	// Deliveries are scheduled on the connections; count them.
	for i, c := range subs {
		want := int64(0)
		if i < 2 {
			want = 1
		}
		if c.last[down] == 0 && want == 1 || c.last[down] != 0 && want == 0 {
			t.Errorf("subscriber on instance %d: delivery scheduled %v, want %v", i, c.last[down] != 0, want == 1)
		}
	}
}

func TestReplicationFollowsAndBreaksOnPartition(t *testing.T) {
	w := testWorld(t)
	runUntil := func(t int64) {
		for {
			fn, ok := w.sch.next(t)
			if !ok {
				return
			}
			fn()
		}
	}
	w.sch.after(replTickPeriod, w.replTick)
	runUntil(1000)
	m, r := w.inst[0], w.inst[1]
	if !r.linkUp || r.offset == 0 || r.offset > m.offset {
		t.Fatalf("replica link %v offset %d, master offset %d", r.linkUp, r.offset, m.offset)
	}
	w.blocked[m.id][r.id] = true
	runUntil(1100)
	if r.linkUp || r.downSince == 0 {
		t.Fatalf("replica link survives a partition (down since %d)", r.downSince)
	}
	frozen := r.offset
	runUntil(1500)
	if r.offset != frozen {
		t.Fatal("offset grows while the link is down")
	}
	w.blocked[m.id][r.id] = false
	runUntil(2200)
	if !r.linkUp || r.offset <= frozen {
		t.Fatalf("link did not come back after the partition: up %v offset %d", r.linkUp, r.offset)
	}
	// A paused master keeps the link up until the replication timeout.
	w.pauseInstance(m)
	runUntil(2200 + w.opt.ReplTimeout/2)
	if !r.linkUp {
		t.Fatal("link dropped before repl-timeout")
	}
	runUntil(2200 + w.opt.ReplTimeout + 2*replTickPeriod)
	if r.linkUp {
		t.Fatal("link to a paused master survives repl-timeout")
	}
}
