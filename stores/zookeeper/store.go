package zookeeper

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Store is the ZooKeeper reference store. It is safe for concurrent use.
type Store struct {
	*stores.Engine
	conn     *zk.Conn
	servers  []string
	root     string
	acl      []zk.ACL
	maxValue int
}

var _ stores.ReferenceStore = (*Store)(nil)

// Open validates cfg, connects, authenticates and waits for a session until
// ctx ends. The session reconnects by itself afterwards.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	zlog := &zkLogger{log: log}
	conn, _, err := zk.Connect(cfg.Servers, cfg.SessionTimeout, zk.WithLogger(zlog))
	if err != nil {
		return nil, fmt.Errorf("connect to zookeeper %v: %w", cfg.Servers, err)
	}
	s := &Store{conn: conn, servers: cfg.Servers, root: cfg.Root, acl: zk.WorldACL(zk.PermAll), maxValue: cfg.MaxValueSize}
	s.Engine = stores.NewEngine(driver{s}, 0)
	if s.maxValue == 0 {
		s.maxValue = DefaultMaxValueSize
	}
	if cfg.DigestUser != "" {
		s.acl = zk.DigestACL(zk.PermAll, cfg.DigestUser, cfg.DigestPassword.Reveal())
		if err := conn.AddAuth("digest", []byte(cfg.DigestUser+":"+cfg.DigestPassword.Reveal())); err != nil {
			conn.Close()
			return nil, fmt.Errorf("authenticate to zookeeper as %q: %w", cfg.DigestUser, err)
		}
	}
	// An ensemble that does not answer is reported every few seconds, with
	// what the client last said (it logs its own failures at debug only),
	// while Open keeps waiting.
	begin, nextReport := time.Now(), time.Now().Add(sessionWaitReport)
	for conn.State() != zk.StateHasSession {
		select {
		case <-ctx.Done():
			conn.Close()
			return nil, fmt.Errorf("connect to zookeeper %v (%s): %w", cfg.Servers, zlog.lastMessage(), ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(nextReport) {
			log.Warn("no zookeeper session yet, still trying", "servers", cfg.Servers, "state", conn.State().String(),
				"waited", time.Since(begin).Round(time.Second).String(), "last", zlog.lastMessage())
			nextReport = time.Now().Add(sessionWaitReport)
		}
	}
	if err := s.ensurePath(ctx, s.root); err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

// Close ends the session.
func (s *Store) Close() error {
	s.conn.Close()
	return nil
}

func (s *Store) jobPath(job stores.JobID) string {
	return s.root + "/" + job.Cluster + "/jobs/" + job.Job
}

func (s *Store) checkpointsPath(job stores.JobID) string {
	return s.root + "/" + job.Cluster + "/checkpoints/" + job.Job
}

func (s *Store) keyPath(id stores.CheckpointID) string {
	return s.checkpointsPath(id.JobID) + "/" + keyName(id.Checkpoint)
}

// keyName is a checkpoint's node name, its ID zero-padded as Flink pads it.
func keyName(n uint64) string { return fmt.Sprintf("%019d", n) }

// call runs one client request, giving up when ctx ends. go-zookeeper takes
// no context; an abandoned request still completes or fails on its own, so
// a write given up on is Unknown, which is exactly what it is.
func call[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// ensurePath creates path and its parents as empty nodes. A parent that
// already exists is fine: parents carry no data.
func (s *Store) ensurePath(ctx context.Context, path string) error {
	for i := 1; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' {
			continue
		}
		p := path[:i]
		_, err := call(ctx, func() (string, error) { return s.conn.Create(p, nil, 0, s.acl) })
		if err != nil && err != zk.ErrNodeExists {
			return fmt.Errorf("create %s: %w", p, readError(err))
		}
	}
	return nil
}

// sync makes the connected server catch up with the leader, so that the
// reads after it are linearizable.
func (s *Store) sync(ctx context.Context) error {
	if _, err := call(ctx, func() (string, error) { return s.conn.Sync(s.root) }); err != nil {
		return fmt.Errorf("sync: %w", readError(err))
	}
	return nil
}

// readError maps a failed read: no access is definite, the rest is left as
// it is (and so Unknown to a mutating caller).
func readError(err error) error {
	if err == zk.ErrNoAuth {
		return fmt.Errorf("%w: %w", stores.ErrForbidden, err)
	}
	return err
}

// sessionWaitReport is how often Open reports a session not yet there.
const sessionWaitReport = 5 * time.Second

// zkLogger passes the client library's messages on at debug and keeps the
// last one, for Open's report of a session that does not come.
type zkLogger struct {
	log  *slog.Logger
	last atomic.Value // string
}

func (l *zkLogger) Printf(format string, args ...any) {
	msg := strings.TrimSpace(fmt.Sprintf(format, args...))
	l.last.Store(msg)
	l.log.Debug(msg, "component", "go-zookeeper")
}

func (l *zkLogger) lastMessage() string {
	if s, ok := l.last.Load().(string); ok {
		return s
	}
	return "no message from the client"
}
