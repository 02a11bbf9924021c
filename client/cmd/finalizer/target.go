package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// target is what an operator signal goes to: one finalization, named as
// status names it, or the batch list --stuck lists (narrowed by --cluster
// and --job), which acts only with --yes and shows itself with --dry-run.
type target struct {
	id identity
	// wid names one execution by its workflow ID instead (a retirement's
	// retire/<cluster>/<job>/<epoch> too).
	wid       string
	stuck     bool
	olderThan time.Duration
	dryRun    bool
	yes       bool
}

func (t *target) register(fs *pflag.FlagSet) {
	t.id.register(fs, true)
	fs.StringVar(&t.wid, "workflow-id", "", "name one execution by its workflow ID instead of --cluster --job --epoch --checkpoint (finalize/..., or a retirement's retire/<cluster>/<job>/<epoch>)")
	fs.BoolVar(&t.stuck, "stuck", false, "act on every finalization and retirement list --stuck lists (only --cluster and --job narrow it) instead of one")
	fs.DurationVar(&t.olderThan, "older-than", 5*time.Minute, "with --stuck: how long in one phase counts as stuck")
	fs.BoolVar(&t.dryRun, "dry-run", false, "with --stuck: list what would be signalled, send nothing")
	fs.BoolVar(&t.yes, "yes", false, "with --stuck: confirm signalling the whole batch (required to act on one)")
}

// check refuses a command line that names neither one finalization nor a
// confirmed batch; fs tells which flags were given.
func (t *target) check(name string, fs *pflag.FlagSet) error {
	if !t.stuck {
		for _, f := range []string{"older-than", "dry-run"} {
			if fs.Changed(f) {
				return usagef("%s: --%s goes with --stuck", name, f)
			}
		}
		if t.wid != "" {
			for _, f := range []string{"cluster", "job", "epoch", "checkpoint"} {
				if fs.Changed(f) {
					return usagef("%s: --workflow-id names the execution, --%s does not go with it", name, f)
				}
			}
			return nil
		}
		if err := requireFlags(name, fs, "cluster", "job", "epoch", "checkpoint"); err != nil {
			return usagef("%s (or --stuck for a batch)", err)
		}
		return t.id.validateCheckpoint()
	}
	for _, f := range []string{"epoch", "checkpoint", "workflow-id"} {
		if fs.Changed(f) {
			return usagef("%s: --%s names one execution, --stuck a batch (narrowed by --cluster and --job only)", name, f)
		}
	}
	if t.olderThan < 0 {
		return usagef("%s: --older-than must not be negative, got %s", name, t.olderThan)
	}
	if !t.dryRun && !t.yes {
		return usagef("%s: --stuck signals every finalization it lists: add --yes to confirm, or --dry-run to see them first", name)
	}
	return nil
}

// workflowID is the one execution's workflow ID.
func (t *target) workflowID() string {
	if t.wid != "" {
		return t.wid
	}
	return contract.FinalizeRequest{Cluster: t.id.cluster, Job: t.id.job, Epoch: t.id.epoch, Checkpoint: t.id.checkpoint}.WorkflowID()
}

// selects tells whether a listed finalization is in the narrowed batch.
func (t *target) selects(cluster, job string) bool {
	return (t.id.cluster == "" || t.id.cluster == cluster) && (t.id.job == "" || t.id.job == job)
}
