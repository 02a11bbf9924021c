package storetest

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// These tests hold the model to hand-written histories, without a store:
// the checker must refuse what a buggy backend answers and accept what a
// correct one may answer under faults.

var modelJob = linearizabilityJobs[0]

// op is a call on modelJob by client, made at from and returned at to
// (possiblyApplied: its answer was lost).
func op(client int, from, to int64, c call, a answer) porcupine.Operation {
	c.Job = modelJob
	c.Owner = "jm"
	if to == possiblyApplied {
		a.Unknown = true
		to = 1000
	}
	return porcupine.Operation{ClientId: client, Input: c, Call: from, Output: a, Return: to}
}

func published(token string, attempt uint32) slot {
	ref := call{Job: modelJob, Token: token, Attempt: attempt}.publication().Reference
	return slotOf(stores.Entry{Reference: &ref})
}

func linearizable(ops ...porcupine.Operation) bool {
	return porcupine.CheckOperations(linearizabilityModel(), ops)
}

var (
	claimed    = op(0, 0, 1, call{Kind: opClaim, Epoch: 1}, answer{})
	publishOld = call{Kind: opPublish, Key: 5, Epoch: 1, Token: "k5-a", Attempt: 1}
	publishNew = call{Kind: opPublish, Key: 6, Epoch: 1, Token: "k6-a", Attempt: 1}
	retire     = call{Kind: opRetire, Epoch: 1}
)

// Issue 10, finding 4: a publish racing Retire, both answered success,
// and the key still published afterwards.
func TestModelRefusesAPublishThatSurvivesRetire(t *testing.T) {
	before := []porcupine.Operation{claimed, op(0, 2, 3, publishOld, answer{}),
		op(0, 4, 10, retire, answer{}), op(1, 5, 9, publishNew, answer{})}
	survived := op(0, 11, 12, call{Kind: opRead, Key: 6}, answer{Entry: published("k6-a", 1)})
	assert.False(t, linearizable(append(before, survived)...))
	watermark := op(0, 11, 12, call{Kind: opReadJob}, answer{State: stores.JobState{Epoch: 1, Owner: "jm", Watermark: 5, Retired: true}})
	assert.False(t, linearizable(append(before, watermark)...), "retired below a key that landed before it")

	tombstoned := answer{Entry: slot{Tombstoned: true, Tombstone: stores.Tombstone{Token: "k6-a", FencedUpTo: 1, Reason: stores.ReasonRetired}}}
	assert.True(t, linearizable(append(before, op(0, 11, 12, call{Kind: opRead, Key: 6}, tombstoned))...))
}

// A lost reply is possibly applied: seen landed, or never seen.
func TestModelAcceptsALostReplyEitherWay(t *testing.T) {
	lost := op(1, 2, possiblyApplied, publishNew, answer{})
	read := func(from int64, s slot) porcupine.Operation {
		return op(0, from, from+1, call{Kind: opRead, Key: 6}, s.answer())
	}
	assert.True(t, linearizable(claimed, lost, read(5, published("k6-a", 1))))
	assert.True(t, linearizable(claimed, lost, read(5, slot{})))
	assert.True(t, linearizable(claimed, lost, read(5, slot{}), read(8, published("k6-a", 1))), "a zombie landing late")
	assert.False(t, linearizable(claimed, lost, read(5, published("k6-a", 1)), read(8, slot{})), "a write never unlands")
}

// I6: once Verify answered Absent, the lost attempt never lands.
func TestModelRefusesAZombieAfterTheFence(t *testing.T) {
	lost := op(1, 2, possiblyApplied, publishNew, answer{})
	fenced := op(0, 3, 4, call{Kind: opVerify, Key: 6, Token: "k6-a", Attempt: 1}, answer{Verdict: stores.Absent})
	landed := op(0, 5, 6, call{Kind: opRead, Key: 6}, published("k6-a", 1).answer())
	assert.False(t, linearizable(claimed, lost, fenced, landed))
}

// A definite rejection must name the condition the decision names.
func TestModelMatchesRejectionsBySentinel(t *testing.T) {
	subsumed := op(0, 2, 3, call{Kind: opSubsume, Key: 6, Epoch: 1}, answer{})
	rejected := func(err error) porcupine.Operation {
		return op(0, 4, 5, publishNew, answer{Rejection: rejectionOf(err)})
	}
	assert.True(t, linearizable(claimed, subsumed, rejected(stores.ErrBelowWatermark)))
	assert.False(t, linearizable(claimed, subsumed, rejected(stores.ErrConflict)))
	assert.False(t, linearizable(claimed, subsumed, op(0, 4, 5, publishNew, answer{})))
}

func (s slot) answer() answer { return answer{Entry: s} }
