package kubernetes

import (
	"context"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// driver is the Store's stores.Driver: a Load is one quorum GET of the
// job's ConfigMap, a Commit one Create or Update conditional on the
// resourceVersion read, sent exactly once.
type driver struct{ s *Store }

// throttleFallback is the wait after a 429 that suggests none.
const throttleFallback = time.Second

// Load implements stores.Driver.
func (d driver) Load(ctx context.Context, job stores.JobID, scope stores.Scope) (stores.Snapshot, error) {
	s := d.s
	if err := s.checkOpen("load"); err != nil {
		return stores.Snapshot{}, err
	}
	name, err := ConfigMapName(job)
	if err != nil {
		return stores.Snapshot{}, err
	}
	cm, err := s.get(ctx, name)
	if err != nil {
		return stores.Snapshot{}, failRead(err)
	}
	snap, err := newSnapshot(job, s.namespace, name, cm)
	if err != nil {
		return stores.Snapshot{}, err
	}
	out := stores.Snapshot{Job: job, State: snap.state, Revision: snap}
	switch {
	case scope.All(snap.state):
		out.Entries, err = snap.entries()
	case scope.Key() != 0:
		var e stores.Entry
		e, err = snap.entry(scope.Key())
		out.Entries = []stores.Entry{e}
	}
	if err != nil {
		return stores.Snapshot{}, err
	}
	return out, nil
}

// Commit implements stores.Driver. A publish leaves FenceReserve bytes
// free in the ConfigMap; every change fits what the server accepts.
func (d driver) Commit(ctx context.Context, snap stores.Snapshot, c stores.Change) error {
	s := d.s
	read, ok := snap.Revision.(*snapshot)
	if !ok {
		return fmt.Errorf("commit: a snapshot this store did not load: %w", stores.ErrInvalid)
	}
	fits := serverFits
	if c.LeaveFenceRoom {
		fits = publishFits
	}
	obj, err := read.apply(change{state: c.State, put: c.Put, drop: c.Drop}, fits)
	if err != nil {
		return err
	}
	create := read.cm == nil
	if create {
		err = s.create(ctx, obj)
	} else {
		err = s.update(ctx, obj)
	}
	if err == nil {
		return nil
	}
	log := s.log.With("configmap", read.name)
	switch class := classify(err, create); class {
	case classReread:
		log.DebugContext(ctx, "conditional write lost a race, reading again", "err", err)
		return fmt.Errorf("%w: %w", stores.ErrRaced, err)
	case classThrottled:
		wait := retryAfter(err, throttleFallback)
		log.InfoContext(ctx, "throttled by the API server, reading again", "wait", wait, "err", err)
		return &stores.ThrottledError{Wait: wait, Err: err}
	case classRefused:
		return fmt.Errorf("%w: %w", refusal(err), err)
	case classTooLarge:
		return fmt.Errorf("%w: %w", stores.ErrTooLarge, err)
	default:
		log.WarnContext(ctx, "write outcome unknown", "err", err)
		return stores.Unknownf(err, "write configmap %s/%s", s.namespace, read.name)
	}
}

// Settle implements stores.Driver: a Load is one GET, one moment.
func (driver) Settle(context.Context, stores.Snapshot) error { return nil }

var _ stores.Driver = driver{}
