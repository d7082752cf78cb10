package core

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/*.txt")

// directive is one block of a scenario file, in the style of
// cockroachdb/datadriven:
//
//	cmd arg key=value ...
//	----
//	expected output
//	<blank line>
type directive struct {
	line     int
	cmd      string
	args     []string
	kv       map[string]string
	expected string
	comments []string
}

func parseScenario(t *testing.T, path string) []directive {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	lines := strings.Split(string(data), "\n")
	var out []directive
	var comments []string
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "#") {
			comments = append(comments, l)
			continue
		}
		d := directive{line: i + 1, kv: map[string]string{}, comments: comments}
		comments = nil
		f := strings.Fields(l)
		d.cmd = f[0]
		for _, a := range f[1:] {
			if k, v, ok := strings.Cut(a, "="); ok {
				d.kv[k] = v
			} else {
				d.args = append(d.args, a)
			}
		}
		i++
		if i >= len(lines) || strings.TrimSpace(lines[i]) != "----" {
			t.Fatalf("%s:%d: missing ---- after directive", path, d.line)
		}
		var exp []string
		for i++; i < len(lines) && lines[i] != ""; i++ {
			exp = append(exp, lines[i])
		}
		d.expected = strings.Join(exp, "\n")
		out = append(out, d)
	}
	return out
}

func writeScenario(path string, ds []directive, outputs []string) error {
	var b strings.Builder
	for k, d := range ds {
		if k > 0 {
			b.WriteString("\n")
		}
		for _, c := range d.comments {
			b.WriteString(c + "\n")
		}
		b.WriteString(d.cmd)
		for _, a := range d.args {
			b.WriteString(" " + a)
		}
		for _, key := range sortedKeys(d.kv) {
			b.WriteString(" " + key + "=" + d.kv[key])
		}
		b.WriteString("\n----\n" + outputs[k] + "\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ds := parseScenario(t, path)
			w := newWorld(t)
			outputs := make([]string, len(ds))
			for k, d := range ds {
				w.out = nil
				w.do(t, d)
				got := strings.Join(w.out, "\n")
				if got == "" {
					got = "ok"
				}
				outputs[k] = got
				// want= names what the story is about; it is checked even
				// with -rewrite, so a regenerated golden cannot silently
				// stop telling the story its comment describes.
				if want, ok := d.kv["want"]; ok {
					for _, w := range strings.Split(want, ",") {
						if !strings.Contains(got, " "+w+" ") && !strings.HasSuffix(got, " "+w) {
							t.Errorf("%s:%d: %s: output lacks %q", path, d.line, d.cmd, w)
						}
					}
				}
				if !*rewrite && got != d.expected {
					t.Errorf("%s:%d: %s\n--- got:\n%s\n--- want:\n%s", path, d.line, d.cmd, got, d.expected)
				}
			}
			if *rewrite {
				if err := writeScenario(path, ds, outputs); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func (d directive) int(t *testing.T, key string, def int) int {
	v, ok := d.kv[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("line %d: %s=%q: %v", d.line, key, v, err)
	}
	return n
}

func (w *world) redisByName(t *testing.T, name string) *fakeRedis {
	r, ok := w.rnames[name]
	if !ok {
		t.Fatalf("no redis %q", name)
	}
	return r
}

// do executes one directive.
func (w *world) do(t *testing.T, d directive) {
	switch d.cmd {
	case "redis", "replica":
		r := w.addRedis(d.kv["name"], d.int(t, "port", 0))
		r.priority = d.int(t, "prio", 100)
		r.offset = int64(d.int(t, "offset", 0))
		if p, ok := d.kv["pass"]; ok {
			r.passwords = strings.Split(p, ",")
		}
		for _, rn := range renames(d.kv["rename"]) {
			if r.renamed == nil {
				r.renamed, r.hidden = map[string]string{}, map[string]bool{}
			}
			r.renamed[strings.ToUpper(rn.To)] = strings.ToUpper(rn.From)
			r.hidden[strings.ToUpper(rn.From)] = true
		}
		if h, ok := d.kv["host"]; ok {
			r.host = h
			w.dns[h] = r.ip
		}
		if of, ok := d.kv["of"]; ok {
			m := w.redisByName(t, of)
			r.master, r.ofHost, r.ofPort = false, m.announced(), m.port
		}
	case "sentinel":
		cfg := Config{Port: d.int(t, "port", 0)}
		cfg.MyID = strings.Repeat(d.kv["id"], 40)[:40]
		cfg.DenyScriptsReconfig = true
		cfg.SentinelPass = d.kv["sentinel-pass"]
		if d.kv["resolve-hostnames"] == "yes" {
			cfg.ResolveHostnames, cfg.AnnounceHostnames = true, true
			cfg.ResolveIP = func(h string) (string, bool) { ip, ok := w.dns[h]; return ip, ok }
		}
		for _, mon := range strings.Split(d.kv["monitor"], "+") {
			p := strings.Split(mon, ":")
			if len(p) != 3 {
				t.Fatalf("line %d: monitor=name:redis:quorum", d.line)
			}
			r := w.redisByName(t, p[1])
			q, _ := strconv.Atoi(p[2])
			cfg.Masters = append(cfg.Masters, MasterConfig{
				Name: p[0], Addr: Addr{Host: r.announced(), Port: r.port}, Quorum: q,
				DownAfter:            Millis(d.int(t, "down-after", 5000)),
				FailoverTimeout:      Millis(d.int(t, "failover-timeout", 20000)),
				ParallelSyncs:        d.int(t, "parallel-syncs", 1),
				NotificationScript:   d.kv["notify"],
				ClientReconfigScript: d.kv["reconfig"],
				RenameCommands:       renames(d.kv["rename"]),
				AuthPass:             d.kv["auth-pass"],
			})
		}
		if a, ok := d.kv["announce"]; ok {
			// announce=ip:port: announce-ip / announce-port, and a NAT
			// that maps only that address to the sentinel.
			host, port, _ := strings.Cut(a, ":")
			cfg.AnnounceIP, cfg.AnnounceIPSet = host, true
			cfg.AnnouncePort, _ = strconv.Atoi(port)
		}
		s := w.addSentinel(d.kv["name"], cfg.Port, cfg)
		s.pub = d.kv["announce"]
		if p, ok := d.kv["requirepass"]; ok {
			s.passwords = strings.Split(p, ",")
		}
		w.drain()
	case "run":
		w.run(Millis(d.int(t, "ms", 1000)))
	case "kill":
		for _, n := range d.args {
			if r, ok := w.rnames[n]; ok {
				r.up = false
				r.downSince = w.now
				w.killClients(r, ConnCmd, nil)
				w.killClients(r, ConnPubSub, nil)
				w.logf("%s killed", n)
			} else {
				w.crash(w.sentinelByName(n))
				w.logf("%s crashed", n)
			}
		}
		w.drain()
	case "revive":
		for _, n := range d.args {
			if r, ok := w.rnames[n]; ok {
				r.up = true
				w.logf("%s revived", n)
			} else {
				w.restart(w.sentinelByName(n))
				w.logf("%s restarted", n)
			}
		}
		w.drain()
	case "pause", "resume":
		for _, n := range d.args {
			w.redisByName(t, n).paused = d.cmd == "pause"
		}
	case "stall":
		s := w.sentinelByName(d.args[0])
		s.stallTo = w.now + Millis(d.int(t, "ms", 3000))
	case "failpersist":
		// failpersist <sentinel> fails its next Persist; mode=all fails
		// every one (a read-only config directory) until mode=off.
		s := w.sentinelByName(d.args[0])
		switch d.kv["mode"] {
		case "all":
			s.failAll = true
		case "off":
			s.failAll = false
		default:
			s.failNext = true
		}
	case "replicaof":
		// replicaof <redis> <master-redis|none>: an admin reconfigures a
		// Redis behind the sentinels' back.
		r := w.redisByName(t, d.args[0])
		if d.args[1] == "none" {
			r.master, r.ofHost, r.ofPort = true, "", 0
		} else {
			m := w.redisByName(t, d.args[1])
			r.master, r.ofHost, r.ofPort = false, m.ip, m.port
		}
	case "move":
		// move <sentinel> port=N: restart a sentinel on another port.
		s := w.sentinelByName(d.args[0])
		w.crash(s)
		s.port = d.int(t, "port", s.port)
		s.cfg.Port = s.port
		w.restart(s)
		w.drain()
	case "requirepass":
		// requirepass <sentinel> pass=a,b: the passwords its server accepts
		// (existing connections stay authenticated).
		w.sentinelByName(d.args[0]).passwords = strings.Split(d.kv["pass"], ",")
	case "moveip":
		// moveip <redis> ip=X: the instance is now at another IP under
		// the same hostname (it must be down: its connections are gone).
		r := w.redisByName(t, d.args[0])
		delete(w.redis, r.addr())
		r.ip = d.kv["ip"]
		w.redis[r.addr()] = r
		if r.host != "" {
			w.dns[r.host] = r.ip
		}
		w.logf("%s now at %s", r.name, r.addr())
	case "set":
		r := w.redisByName(t, d.args[0])
		if p, ok := d.kv["pass"]; ok {
			r.passwords = strings.Split(p, ",") // existing connections stay authenticated
		}
		if v, ok := d.kv["deny"]; ok {
			// deny=info,... : the sentinels' ACL user loses these
			// commands (deny= allows everything again).
			r.denied = map[string]bool{}
			for _, c := range strings.Split(v, ",") {
				if c != "" {
					r.denied[strings.ToUpper(c)] = true
				}
			}
		}
		r.priority = d.int(t, "prio", r.priority)
		r.offset = int64(d.int(t, "offset", int(r.offset)))
	case "deadlines":
		// deadlines on|off: tick each sentinel at its NextDeadline too.
		w.deadlines = len(d.args) > 0 && d.args[0] == "on"
	case "trace":
		// trace <redis> CMD...: log every CMD a sentinel sends to it.
		r := w.redisByName(t, d.args[0])
		if w.traced == nil {
			w.traced = map[string]map[string]bool{}
		}
		if w.traced[r.name] == nil {
			w.traced[r.name] = map[string]bool{}
		}
		for _, c := range d.args[1:] {
			w.traced[r.name][strings.ToUpper(c)] = true
		}
	case "latency":
		w.latency = Millis(d.int(t, "ms", 0))
	case "disk":
		w.diskLatency = Millis(d.int(t, "ms", 0))
	case "hide":
		for _, typ := range d.args {
			if typ == "log" {
				w.logs = false
			}
			w.filter[typ] = true
		}
	case "show":
		for _, typ := range d.args {
			if typ == "log" {
				w.logs = true // Log effects are hidden until "show log"
			}
			delete(w.filter, typ)
		}
	case "cmd":
		s := w.sentinelByName(d.args[0])
		if len(d.args) == 2 && d.args[1] == "INFO-SECTION" {
			w.logf("%s info %q", s.name, s.core.InfoSection(w.now))
			return
		}
		w.clientCmd(s, d.args[1:])
	case "state":
		for _, n := range d.args {
			w.printState(w.sentinelByName(n))
		}
	default:
		t.Fatalf("line %d: unknown directive %q", d.line, d.cmd)
	}
}

func (w *world) printState(s *tsent) {
	for _, m := range s.core.Masters() {
		var reps []string
		for _, r := range m.Replicas {
			reps = append(reps, fmt.Sprintf("%d", r.Addr.Port))
		}
		flags := ""
		if m.SDown {
			flags += " sdown"
		}
		if m.ODown {
			flags += " odown"
		}
		w.logf("%s %s addr=%d epoch=%d config-epoch=%d vote=%s/%d failover=%s replicas=%s sentinels=%d tilt=%v%s",
			s.name, m.Name, m.CurrentAddr.Port, s.core.CurrentEpoch(), m.ConfigEpoch,
			short(m.Leader), m.LeaderEpoch, m.FailoverState, strings.Join(reps, ","), len(m.Sentinels), s.core.InTilt(), flags)
	}
}

func short(id string) string {
	if len(id) > 4 {
		return id[:4]
	}
	if id == "" {
		return "-"
	}
	return id
}

// renames parses rename=FROM:to,FROM2:to2 (rename-command lines).
func renames(v string) []Rename {
	var out []Rename
	for _, p := range strings.Split(v, ",") {
		if from, to, ok := strings.Cut(p, ":"); ok {
			out = append(out, Rename{From: from, To: to})
		}
	}
	return out
}
