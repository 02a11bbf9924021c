package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Release lets go the kept state whose handle is handleKey, as the
// reconciler reports it (`finalizer-worker release <handle-key>`): an
// operator's keep mark beside the handle (an abandoned finalization's) is
// removed, and its record in the store, retained by a retirement or a
// savepoint's, becomes a retired tombstone (stores.DecideRelease). The reconciler then
// discards that state once its grace has passed since the release, never
// a savepoint's data. It is an operator's decision, taken with the
// worker's configuration and the store's credentials, never a workflow:
// anyone in the Temporal namespace can start one. A cluster the
// configuration does not serve is refused before the store is opened.
func Release(ctx context.Context, cfg Config, handleKey string, log *slog.Logger) error {
	id, epoch, err := blobstate.ParseKey(handleKey)
	if err != nil {
		return err
	}
	layout, err := blobstate.ParseLayout(cfg.Clusters)
	if err != nil {
		return err
	}
	if err := layout.Serves(id.Cluster); err != nil {
		return err
	}
	states, err := blobstate.Open(ctx, cfg.StateBucket)
	if err != nil {
		return err
	}
	defer states.Close()
	unmarked, err := states.Unkeep(ctx, handleKey)
	if err != nil {
		return fmt.Errorf("release %s: %w", handleKey, err)
	}
	refs, err := openReferences(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer refs.Close()
	err = refs.Release(ctx, id, contract.Token(id, epoch))
	if unmarked && errors.Is(err, stores.ErrConflict) {
		// An abandoned finalization's state has its mark and no record
		// in the store: releasing the mark was the whole release.
		return nil
	}
	if err != nil {
		return fmt.Errorf("release %s: %w", handleKey, err)
	}
	return nil
}
