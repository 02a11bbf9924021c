package faultharness

import (
	"context"
	"math/rand/v2"
	"slices"
)

// AdversarialKind names one kind of adversarial request: what a buggy or
// misconfigured job manager sends.
type AdversarialKind string

// The adversarial kinds, in the order the report lists them.
const (
	// ForeignDirectory: a job of another cluster names a live checkpoint
	// directory of a harness job as its exclusivePrefix and metadataKey.
	// Expected: Failed, the reason naming the field and the expected
	// directory, nothing written.
	ForeignDirectory AdversarialKind = "foreign-directory"
	// NestedDirectory: a job's next checkpoint N names a directory nested in
	// its newest live checkpoint M's, <cluster>/<job>/chk-M/x/chk-N/, so that
	// discarding M would delete N. Expected: Failed, nothing written.
	NestedDirectory AdversarialKind = "nested-directory"
	// UnclaimedEpoch: a request for a job's newest live checkpoint, in its
	// own directory, at an epoch nobody claimed (far above the current
	// claim). Expected: Discarded (stale epoch), the live checkpoint's data
	// kept, retention going on.
	UnclaimedEpoch AdversarialKind = "unclaimed-epoch"
	// TriggerBeforeClaim: the job's next leader triggers its first
	// checkpoint before its claim lands, then claims. Expected: Discarded
	// (stale epoch); the job goes on at the new epoch.
	TriggerBeforeClaim AdversarialKind = "trigger-before-claim"
)

// AdversarialKinds is every adversarial kind, in report order.
var AdversarialKinds = []AdversarialKind{ForeignDirectory, NestedDirectory, UnclaimedEpoch, TriggerBeforeClaim}

// lifeAction is a lifecycle step a job manager takes with one ticket of
// the random phase, before that ticket's checkpoint.
type lifeAction struct {
	retire      bool
	adversarial AdversarialKind // "" for a retirement
}

// lifePlan spreads the retirements and adversarial requests evenly over
// the k tickets of the random phase: each is due at one ticket, and the
// job that takes the ticket carries it out. Every adversarial kind comes
// once, shuffled, as long as n allows, then uniform draws. The same seed
// gives the same plan.
func lifePlan(rng *rand.Rand, k, retirements, adversarial int) map[int][]lifeAction {
	plan := map[int][]lifeAction{}
	// Retirements leave the first and last tickets alone: a job retires
	// with checkpoints behind it and has time to checkpoint again.
	for i := range max(retirements, 0) {
		t := (i + 1) * k / (retirements + 1)
		plan[t] = append(plan[t], lifeAction{retire: true})
	}
	kinds := slices.Clone(AdversarialKinds)
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	for i := range max(adversarial, 0) {
		kind := AdversarialKinds[rng.IntN(len(AdversarialKinds))]
		if i < len(kinds) {
			kind = kinds[i]
		}
		t := (2*i + 1) * k / (2 * adversarial)
		plan[t] = append(plan[t], lifeAction{adversarial: kind})
	}
	return plan
}

// lifeActions carries out the lifecycle steps due at ticket t for job j:
// a retirement and the reuse of the ID in the job's stream, adversarial
// requests beside it (counted in r.waits, bounded by the settle context).
// False when the job was never forgotten and its manager gives up.
func (r *run) lifeActions(ctx context.Context, j *job, t int) (bool, error) {
	for _, a := range r.plan[t] {
		if a.retire {
			if ok, err := r.retireAndReuse(ctx, j); !ok || err != nil {
				return ok, err
			}
			continue
		}
		r.waits.Add(1)
		go func() {
			defer r.waits.Done()
			r.adversarial(r.settleCtx, j, a.adversarial)
		}()
	}
	return true, nil
}
