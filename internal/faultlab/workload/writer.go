package workload

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gosentinel/gosentinel/client"
	"github.com/redis/go-redis/v9"
)

// WriterConfig configures StartWriter.
type WriterConfig struct {
	Name       string // unique among writers; ids are "<Name>-<seq>"
	Client     ClientKind
	MasterName string
	Sentinels  []string
	Dialer     Dialer // for sentinels and data nodes (nil: plain TCP)
	Mode       WriteMode
	// WaitTimeout is WAIT's timeout in the WAIT modes (default 100 ms).
	WaitTimeout time.Duration
	Replicas    int // replicas WAIT asks for in ModeWaitAll
	Rate        int // writes per second, total (default 100)
	Keys        int // lists log:0 .. log:Keys-1 (default 8)
	Password    string
	// SentinelPassword authenticates to the sentinels ("" for none).
	SentinelPassword string
	// Workers is how many operations may be in flight at once (default 4).
	Workers int
	// MaxDuration bounds the writer's life: it stops issuing writes after
	// it even if Stop is not called (default 10 min).
	MaxDuration time.Duration
	// OpTimeout is the clients' read/write timeout (default 1 s); dial
	// timeouts keep each client's default.
	OpTimeout time.Duration
	// MaxRetries is passed to the client (0: the client's default, -1:
	// none). Retries that resend an id show up as Op.Sent > 1.
	MaxRetries int
	// ClientOptions, when set, adjusts the gosentinel client's options
	// after the workload filled them in (ClientGosentinel only).
	ClientOptions func(*client.FailoverOptions)
	// GoRedisOptions, when set, adjusts go-redis's options (ClientGoRedis only).
	GoRedisOptions func(*redis.FailoverOptions)
}

// Writer runs list-append writes until Stop.
type Writer struct {
	cfg     WriterConfig
	rdb     *redis.Client
	tracker *sendTracker
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	done    chan struct{} // closed when every worker has returned

	mu     sync.Mutex // guards seq, bucket, ops
	seq    int
	bucket *bucket
	ops    []Op
	once   sync.Once
}

// ErrBadConfig is returned by StartWriter and StartSampler for an invalid
// configuration.
var ErrBadConfig = errors.New("workload: bad configuration")

func (c *WriterConfig) withDefaults() (WriterConfig, error) {
	o := *c
	if o.Name == "" || o.MasterName == "" || len(o.Sentinels) == 0 {
		return o, fmt.Errorf("%w: writer needs Name, MasterName and Sentinels", ErrBadConfig)
	}
	switch o.Mode {
	case "":
		o.Mode = ModePlain
	case ModePlain, ModeWait1, ModePipeline, ModeMulti, ModeQueue:
	case ModeWaitAll:
		if o.Replicas <= 0 {
			return o, fmt.Errorf("%w: mode %s needs Replicas > 0", ErrBadConfig, o.Mode)
		}
	default:
		return o, fmt.Errorf("%w: unknown write mode %q", ErrBadConfig, o.Mode)
	}
	if o.WaitTimeout <= 0 {
		o.WaitTimeout = 100 * time.Millisecond
	}
	if o.Rate <= 0 {
		o.Rate = 100
	}
	if o.Keys <= 0 {
		o.Keys = 8
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.MaxDuration <= 0 {
		o.MaxDuration = 10 * time.Minute
	}
	if o.OpTimeout <= 0 {
		o.OpTimeout = time.Second
	}
	o.Dialer = o.Dialer.orDefault()
	return o, nil
}

// StartWriter builds the client and starts the workers.
func StartWriter(ctx context.Context, cfg WriterConfig) (*Writer, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	w := &Writer{cfg: c, tracker: newSendTracker(c.Name), bucket: newBucket(c.Rate), done: make(chan struct{})}
	dial := w.tracker.dialer(c.Dialer)
	switch c.Client {
	case ClientGosentinel:
		o := &client.FailoverOptions{
			MasterName: c.MasterName, SentinelAddrs: c.Sentinels,
			SentinelPassword: c.SentinelPassword, Password: c.Password,
			SentinelDialer: client.DialFunc(c.Dialer), Dialer: client.DialFunc(dial),
			ReadTimeout: c.OpTimeout, WriteTimeout: c.OpTimeout,
			MaxRetries: c.MaxRetries, PoolSize: c.Workers,
		}
		if c.ClientOptions != nil {
			c.ClientOptions(o)
		}
		w.rdb = client.NewFailoverClient(o)
	case ClientGoRedis:
		o := &redis.FailoverOptions{
			MasterName: c.MasterName, SentinelAddrs: c.Sentinels,
			SentinelPassword: c.SentinelPassword, Password: c.Password,
			Dialer:      dial, // go-redis uses one dialer for sentinels and data nodes
			ReadTimeout: c.OpTimeout, WriteTimeout: c.OpTimeout,
			MaxRetries: c.MaxRetries, PoolSize: c.Workers,
		}
		if c.GoRedisOptions != nil {
			c.GoRedisOptions(o)
		}
		w.rdb = redis.NewFailoverClient(o)
	default:
		return nil, fmt.Errorf("%w: unknown client kind %q", ErrBadConfig, c.Client)
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.MaxDuration)
	w.cancel = cancel
	stop := context.AfterFunc(ctx, cancel)
	w.wg.Add(c.Workers)
	for i := 0; i < c.Workers; i++ {
		go w.work(wctx)
	}
	if c.Mode == ModeQueue {
		w.wg.Add(1)
		go w.consume(wctx)
	}
	go func() { w.wg.Wait(); stop(); close(w.done) }()
	return w, nil
}

// Done is closed when the writer has stopped issuing writes and none is in
// flight (after Stop, ctx's end or MaxDuration). Stop must still be
// called to close the client.
func (w *Writer) Done() <-chan struct{} { return w.done }

// Stop stops issuing writes, waits for the ones in flight (bounded by the
// clients' timeouts), closes the client and returns every operation in
// invocation order. Calling it again returns the same operations.
func (w *Writer) Stop() []Op {
	w.once.Do(func() {
		w.cancel()
		<-w.done
		_ = w.rdb.Close()
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	out := append([]Op(nil), w.ops...)
	sortOps(out)
	return out
}

// Progress is a snapshot of a running writer's counts.
type Progress struct {
	OK, Fail, Unknown int
	LastOK            time.Time // invoke time of the latest ok write
	LastOKNode        string    // its acknowledging node
}

// Progress returns the writer's counts so far (for a scenario waiting until
// writes flow again).
func (w *Writer) Progress() Progress {
	w.mu.Lock()
	defer w.mu.Unlock()
	var p Progress
	for _, op := range w.ops {
		switch op.Result {
		case ResultOK:
			p.OK++
			if op.Invoke.After(p.LastOK) {
				p.LastOK, p.LastOKNode = op.Invoke, op.Node
			}
		case ResultFail:
			p.Fail++
		default:
			p.Unknown++
		}
	}
	return p
}

// work is one worker: take a token, write, record, until ctx ends.
func (w *Writer) work(ctx context.Context) {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		d, ok := w.bucket.wait(ctx, time.Now())
		seq := w.seq + 1
		w.seq += w.idsPerOp()
		w.mu.Unlock()
		if !ok {
			return
		}
		if d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			// Both may be ready when this goroutine runs late (a loaded
			// machine): a token that comes due after the end is not used
			// (TestWriterBoundedRateAndLife saw 52 writes in 1 s at 50/s).
			if ctx.Err() != nil {
				return
			}
		}
		if w.cfg.Mode == ModePipeline || w.cfg.Mode == ModeMulti || w.cfg.Mode == ModeQueue {
			w.record(w.writeKind(seq)...)
			continue
		}
		id := w.cfg.Name + "-" + strconv.Itoa(seq)
		key := "log:" + strconv.Itoa(seq%w.cfg.Keys)
		w.record(w.write(id, key))
	}
}

// opContext bounds one operation: dial (each client's default, up to 5 s)
// plus the reply timeout and a margin. It is not tied to Stop, so an
// operation in flight at Stop ends on its own terms.
func (w *Writer) opContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 6*time.Second+3*w.cfg.OpTimeout)
}
