package faultlab

import (
	"context"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// MasterName is the name every lab sentinel monitors its group under.
const MasterName = "mym"

// Ports used inside every lab host (fixed ports cannot collide there: each
// host is its own network namespace).
const (
	RedisPort    = 6379
	SentinelPort = 26379
)

// Setup describes a topology and its workload; the zero value of each field
// is the §4 default (T3, quorum 2, down-after 2000, failover-timeout 10000,
// parallel-syncs 1, sentinels co-located with the redis nodes).
type Setup struct {
	// Sentinels is 3 (T3) or 5 (T5: h4 and h5 carry a sentinel only).
	Sentinels int
	// Quorum defaults to 2 (T3) or 3 (T5).
	Quorum int
	// DownAfterMs, FailoverTimeoutMs, ParallelSyncs are the sentinel timers.
	DownAfterMs, FailoverTimeoutMs, ParallelSyncs int
	// SeparateSentinels puts the sentinels on hosts s1..sN of their own,
	// so that a sentinel's links can be cut without cutting a redis node's.
	SeparateSentinels bool
	// Priority gives a redis host a replica-priority (absent: 100).
	Priority map[string]int
	// MinReplicas sets min-replicas-to-write on every redis node
	// (min-replicas-max-lag 10).
	MinReplicas int
	// Hostnames: resolve-hostnames and announce-hostnames yes on the
	// sentinels, monitor and replicaof by host name, replicas announce
	// their host name.
	Hostnames bool
	// RedisConf are extra lines for every redis.conf (e.g. settings that
	// CONFIG SET cannot change, such as enable-debug-command).
	RedisConf []string
	// SentinelTmpfs, when set (e.g. "64k"), mounts each sentinel's config
	// directory as a tmpfs of that size (for the full-disk fault).
	SentinelTmpfs string
	// AOF turns on appendonly on every redis node (appendfsync everysec).
	AOF bool
	// ConfFileBind bind-mounts each sentinel's config file onto itself
	// (a single-file bind mount, as in a container): renaming over it
	// fails with EBUSY.
	ConfFileBind bool
	// LateSentinels are sentinel hosts whose sentinel BuildTopology does
	// not start (the schedule adds it later, as a new sentinel).
	LateSentinels []string
	// Writers run during the scenario; nil means DefaultWriters.
	Writers []WriterSpec
	// NoWriters runs the scenario without any writer.
	NoWriters bool
	// Auth puts passwords and ACL users on redis and the sentinels
	// (auth.go); the zero value is none.
	Auth AuthSetup
	// TLS runs every redis-server and sentinel on TLS only: port 0, the
	// usual port number as tls-port, tls-auth-clients yes and
	// tls-replication yes, with certificates of a lab CA (tls.go); the
	// lab's writers, sampler and observer connect over TLS (F5).
	TLS bool
	// Prepare runs after the hosts are added and before any process
	// starts (E3's DNS server, E4's port-mapping NAT).
	Prepare func(ctx context.Context, t *Topology) error
	// RedisExtra and SentinelExtra return lines appended to host h's
	// redis.conf / sentinel.conf (after the monitor line).
	RedisExtra, SentinelExtra func(t *Topology, h string) string
}

// WriterSpec is one writer of a scenario's workload.
type WriterSpec struct {
	Name   string
	Host   string // "c1" (client host, majority side) or a redis host ("h1": with the master)
	Client workload.ClientKind
	Mode   workload.WriteMode
	Rate   int // writes per second (default 50)
	// SentinelOrder, when set, lists the sentinel hosts in the order the
	// client is given them (default: s1/h1 first).
	SentinelOrder []string
}

// DefaultWriters is the workload of most scenarios: both clients plain,
// and our client with WAIT 1 and WAIT all, on the client host c1.
func DefaultWriters() []WriterSpec {
	return []WriterSpec{
		{Name: "gs-plain", Host: "c1", Client: workload.ClientGosentinel, Mode: workload.ModePlain},
		{Name: "gr-plain", Host: "c1", Client: workload.ClientGoRedis, Mode: workload.ModePlain},
		{Name: "gs-wait1", Host: "c1", Client: workload.ClientGosentinel, Mode: workload.ModeWait1},
		{Name: "gs-waitall", Host: "c1", Client: workload.ClientGosentinel, Mode: workload.ModeWaitAll},
	}
}

// withDefaults fills in the §4 defaults.
func (s Setup) withDefaults() Setup {
	if s.Sentinels == 0 {
		s.Sentinels = 3
	}
	if s.Quorum == 0 {
		s.Quorum = s.Sentinels/2 + 1
	}
	if s.DownAfterMs == 0 {
		s.DownAfterMs = 2000
	}
	if s.FailoverTimeoutMs == 0 {
		s.FailoverTimeoutMs = 10000
	}
	if s.ParallelSyncs == 0 {
		s.ParallelSyncs = 1
	}
	if s.Writers == nil && !s.NoWriters {
		s.Writers = DefaultWriters()
	}
	if s.NoWriters {
		s.Writers = nil
	}
	for i := range s.Writers {
		if s.Writers[i].Rate == 0 {
			s.Writers[i].Rate = 50
		}
	}
	return s
}
