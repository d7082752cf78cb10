package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// ClusterOpts describes a monitored topology: one master with replicas and
// a set of sentinels of one implementation, all with the same config.
type ClusterOpts struct {
	Name            string // master name; default "mymaster"
	Replicas        int    // default 2
	Sentinels       int    // default 3
	Quorum          int    // default 2
	DownAfterMs     int    // default 1000
	FailoverTimeout int    // ms; default 60000
	// Ready bounds the wait until every sentinel sees the replicas and the
	// other sentinels; default 30 s.
	Ready time.Duration
	// Extra is appended to every sentinel's config (e.g. "tcp-backlog 4096\n").
	Extra string
}

func (o *ClusterOpts) defaults() {
	if o.Name == "" {
		o.Name = "mymaster"
	}
	if o.Replicas == 0 {
		o.Replicas = 2
	}
	if o.Sentinels == 0 {
		o.Sentinels = 3
	}
	if o.Quorum == 0 {
		o.Quorum = 2
	}
	if o.DownAfterMs == 0 {
		o.DownAfterMs = 1000
	}
	if o.FailoverTimeout == 0 {
		o.FailoverTimeout = 60000
	}
	if o.Ready == 0 {
		o.Ready = 30 * time.Second
	}
}

// Cluster is a running topology watched by sentinels.
type Cluster struct {
	Opts      ClusterOpts
	Top       *testutil.Topology
	Sentinels []*testutil.Process
}

// StartCluster starts the redis-servers and the sentinels of impl, then
// waits until every sentinel knows all replicas and all other sentinels (a
// failover measured before that would measure discovery instead).
func StartCluster(env *Env, impl Impl, o ClusterOpts) *Cluster {
	o.defaults()
	top := testutil.StartTopology(env, o.Replicas)
	cl := &Cluster{Opts: o, Top: top}
	body := testutil.SentinelConf(o.Name, top.Master.Port, o.Quorum, o.DownAfterMs, o.FailoverTimeout) + o.Extra
	for i := 0; i < o.Sentinels; i++ {
		conf, port, log := writeSentinelConf(env, body)
		cl.Sentinels = append(cl.Sentinels, testutil.StartSentinelConf(env, impl.Bin, conf, port, log))
	}
	for _, s := range cl.Sentinels {
		addr := s.Addr()
		testutil.WaitFor(env, o.Ready, impl.Name+" "+addr+" discovered replicas and sentinels", func() bool {
			m, err := ask(addr, func(c *Conn) (map[string]string, error) { return Master(c, o.Name) })
			return err == nil &&
				m["flags"] == "master" &&
				m["num-slaves"] == strconv.Itoa(o.Replicas) &&
				m["num-other-sentinels"] == strconv.Itoa(o.Sentinels-1)
		})
	}
	return cl
}

// writeSentinelConf writes a sentinel.conf with a free port, a log file and
// body into a fresh directory, and returns its path, port and log path.
func writeSentinelConf(env *Env, body string) (conf string, port int, log string) {
	port = testutil.FreePort(env)
	dir, err := os.MkdirTemp(env.TempDir(), "sentinel-"+strconv.Itoa(port)+"-")
	if err != nil {
		env.Fatalf("harness: sentinel dir: %v", err)
	}
	conf = filepath.Join(dir, "sentinel.conf")
	log = filepath.Join(dir, "sentinel.log")
	var b strings.Builder
	fmt.Fprintf(&b, "port %d\nbind 127.0.0.1\nlogfile %s\n", port, strconv.Quote(log))
	b.WriteString(body)
	if err := os.WriteFile(conf, []byte(b.String()), 0o644); err != nil {
		env.Fatalf("harness: write %s: %v", conf, err)
	}
	return conf, port, log
}
