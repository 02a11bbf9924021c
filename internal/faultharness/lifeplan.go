package faultharness

import (
	"context"
)

// lifeAction is a lifecycle step a job manager takes with one ticket of
// the random phase, before that ticket's checkpoint.
type lifeAction struct {
	retire bool
}

// lifePlan spreads the retirements evenly over the k tickets of the random
// phase: each is due at one ticket, and the job that takes the ticket
// carries it out.
func lifePlan(k, retirements int) map[int][]lifeAction {
	plan := map[int][]lifeAction{}
	// Retirements leave the first and last tickets alone: a job retires
	// with checkpoints behind it and has time to checkpoint again.
	for i := range max(retirements, 0) {
		t := (i + 1) * k / (retirements + 1)
		plan[t] = append(plan[t], lifeAction{retire: true})
	}
	return plan
}

// lifeActions carries out the lifecycle steps due at ticket t for job j:
// a retirement and the reuse of the ID in the job's stream. False when the
// job was never forgotten and its manager gives up.
func (r *run) lifeActions(ctx context.Context, j *job, t int) (bool, error) {
	for _, a := range r.plan[t] {
		if a.retire {
			if ok, err := r.retireAndReuse(ctx, j); !ok || err != nil {
				return ok, err
			}
		}
	}
	return true, nil
}
