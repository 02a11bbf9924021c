package stores

import (
	"context"
	"slices"
	"strings"
)

// Inventory is what the reconciler needs of a store beyond ReferenceStore:
// the cluster's jobs and its one repair. Every backend
// implements it with the same semantics, held by the conformance suite.
// Reads are linearizable, like Verify's.
type Inventory interface {
	// ListJobs returns the cluster's jobs the store knows, sorted: those
	// with a job state (claimed, or retired and not yet forgotten) or at
	// least one key (a fence written before any claim counts).
	ListJobs(ctx context.Context, cluster string) ([]JobID, error)
	// Quarantine turns the published reference of token at id into a
	// tombstone (ReasonQuarantined), with one compare-and-set: only if the
	// key still holds token. A key already quarantined for token is
	// Published; another token's reference, any other tombstone or an
	// absent key is Rejected (ErrConflict) and nothing is written. It is
	// not conditional on the epoch: a dangling reference is repaired by an
	// operator's reconciler, not by the job's leader.
	Quarantine(ctx context.Context, id CheckpointID, token string) error
}

// ValidateCluster checks a cluster ID: a DNS-1123 label, like a JobID's.
func ValidateCluster(cluster string) error {
	return validateName("cluster", cluster)
}

// JobKnown reports whether ListJobs lists a job with this state and this
// many keys: a forgotten job (only its epoch floor left, no key) is not.
func JobKnown(state JobState, keys int) bool {
	return state.Owner != "" || state.Retired || keys > 0
}

// SortJobs sorts job IDs and drops duplicates, the order ListJobs returns.
func SortJobs(jobs []JobID) []JobID {
	slices.SortFunc(jobs, func(a, b JobID) int {
		if c := strings.Compare(a.Cluster, b.Cluster); c != 0 {
			return c
		}
		return strings.Compare(a.Job, b.Job)
	})
	return slices.Compact(jobs)
}
