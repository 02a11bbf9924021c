package blobstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// KeepMark is an operator's decision to keep a handle's state, stored
// beside the handle (kept/<cluster>/<job>/<epoch>/<checkpoint>.json): the
// record that makes the state kept once nothing else says so, such as
// an abandoned finalization's, whose closed history Temporal forgets.
// Every delete consults it (activities.Guard); only an operator's release
// removes it.
type KeepMark struct {
	HandleKey string    `json:"handleKey"`
	Reason    string    `json:"reason"`
	Since     time.Time `json:"since"`
}

// maxMarkSize bounds a stored mark; a larger blob is not one of ours.
const maxMarkSize = 16 << 10

// markKey is the key of the mark of handleKey, which must be a handle key.
func markKey(handleKey string) (string, error) {
	if _, _, err := ParseKey(handleKey); err != nil {
		return "", err
	}
	return stores.KeptPrefix + strings.TrimPrefix(handleKey, stores.HandlesPrefix), nil
}

// Keep marks handleKey's state kept for reason, unless a mark stands
// already (the first reason and time stay): idempotent.
func (s *Store) Keep(ctx context.Context, handleKey, reason string, now time.Time) error {
	key, err := markKey(handleKey)
	if err != nil {
		return fmt.Errorf("keep %s: %w", handleKey, err)
	}
	if _, ok, err := s.Mark(ctx, handleKey); err != nil || ok {
		return err
	}
	b, err := json.Marshal(KeepMark{HandleKey: handleKey, Reason: reason, Since: now.UTC()})
	if err != nil {
		return fmt.Errorf("keep %s: %w", handleKey, err)
	}
	if err := s.bucket.WriteAll(ctx, key, b, &blob.WriterOptions{ContentType: "application/json"}); err != nil {
		return fmt.Errorf("keep %s: write %s: %w", handleKey, key, s.scrub(err))
	}
	if err := s.syncLocal(key); err != nil {
		return fmt.Errorf("keep %s: %w", handleKey, err)
	}
	return nil
}

// Mark reads handleKey's keep mark; ok is false when none stands. A mark
// that cannot be decoded still stands, with a reason that says so: when in
// doubt the state stays.
func (s *Store) Mark(ctx context.Context, handleKey string) (m KeepMark, ok bool, err error) {
	key, err := markKey(handleKey)
	if err != nil {
		return KeepMark{}, false, fmt.Errorf("read the keep mark of %s: %w", handleKey, err)
	}
	b, err := s.readSmall(ctx, key, maxMarkSize)
	switch {
	case errors.Is(err, ErrNotFound):
		return KeepMark{}, false, nil
	case err != nil:
		return KeepMark{}, false, fmt.Errorf("read the keep mark of %s: %w", handleKey, err)
	}
	if len(b) > maxMarkSize || json.Unmarshal(b, &m) != nil || m.HandleKey != handleKey {
		return KeepMark{HandleKey: handleKey, Reason: "a keep mark that cannot be read (" + key + ")"}, true, nil
	}
	return m, true, nil
}

// Unkeep removes handleKey's keep mark: removed is false when none stood.
func (s *Store) Unkeep(ctx context.Context, handleKey string) (removed bool, err error) {
	key, err := markKey(handleKey)
	if err != nil {
		return false, fmt.Errorf("release the keep mark of %s: %w", handleKey, err)
	}
	err = s.bucket.Delete(ctx, key)
	switch {
	case gcerrors.Code(err) == gcerrors.NotFound:
		return false, nil
	case err != nil:
		return false, fmt.Errorf("release the keep mark of %s: %w", handleKey, s.scrub(err))
	}
	return true, nil
}
