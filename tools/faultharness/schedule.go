package faultharness

import (
	"math/rand/v2"
	"slices"
)

// weights make the kinds that hit the protocol's hardest path (an
// ambiguous write) the most frequent; the slow ones (restarts) rarer.
var weights = map[FaultKind]int{
	DropReply: 4, DropRequest: 3, Reset: 2, Latency: 2, PartitionNode: 2, PartitionAll: 2,
	SessionExpiry: 1, LeaderKill: 2, WorkerKill: 2, TemporalRestart: 1, Leadership: 2, StaleReplay: 2,
	EtcdAppliedError: 4, EtcdAppliedTimeout: 2, EtcdLost: 3, EtcdReset: 2, WriteOutage: 3,
	BlobWriteFailure: 2, BlobWriteReplyLost: 2, BlobDeleteFailure: 2,
}

// plan draws the kinds of n faults: every enabled kind once, shuffled, as
// long as n allows, then weighted draws. The same seed gives the same plan.
func plan(rng *rand.Rand, kinds []FaultKind, n int) []FaultKind {
	out := make([]FaultKind, 0, n)
	first := slices.Clone(kinds)
	rng.Shuffle(len(first), func(i, j int) { first[i], first[j] = first[j], first[i] })
	for _, k := range first {
		if len(out) == n {
			return out
		}
		out = append(out, k)
	}
	total := 0
	for _, k := range kinds {
		total += weights[k]
	}
	for len(out) < n {
		x := rng.IntN(total)
		for _, k := range kinds {
			if x -= weights[k]; x < 0 {
				out = append(out, k)
				break
			}
		}
	}
	return out
}
