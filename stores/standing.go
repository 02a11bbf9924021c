package stores

import "fmt"

// Standing is what an epoch is to a job, as the job's state stands.
type Standing int

const (
	// EpochStanding: the job's standing claim.
	EpochStanding Standing = iota
	// EpochDeposed: a later claim stands, so no publish of it can ever
	// land again: claims only rise.
	EpochDeposed
	// EpochUnclaimed: above every claim so far. Nobody holds it, yet
	// somebody still may, and then its publishes could land.
	EpochUnclaimed
	// EpochForgotten: of the job ID's forgotten incarnation. The
	// directories it wrote are the new incarnation's now.
	EpochForgotten
	// EpochForeign: the standing epoch's number under another owner. No
	// publish of it can land (publishes are conditional on the owner too),
	// and the standing leader, whose finalizations share its token, may
	// still publish.
	EpochForeign
)

func (s Standing) String() string {
	switch s {
	case EpochStanding:
		return "standing"
	case EpochDeposed:
		return "deposed"
	case EpochUnclaimed:
		return "unclaimed"
	case EpochForeign:
		return "foreign"
	default:
		return "forgotten"
	}
}

// Standing classifies a party's claim, epoch and owner, against the job's
// state. An empty owner is classified by the epoch alone (state of
// finalizations started before requests named their owner).
func (j JobState) Standing(epoch uint64, owner string) Standing {
	switch {
	case epoch <= j.ForgottenEpoch:
		return EpochForgotten
	case j.Claimed(epoch) && owner != "" && owner != j.Owner:
		return EpochForeign
	case j.Claimed(epoch):
		return EpochStanding
	case epoch > j.Epoch:
		return EpochUnclaimed
	}
	return EpochDeposed
}

// DecideFence decides whether a party holding the claim (epoch, owner)
// and its token may fence the checkpoint's key and then decide its
// directory <dir>/<job>/chk-N/, which every epoch and incarnation of the
// job shares. job must be read before the key, so that a claim it shows
// was made before the key is read. Only the standing claim may, at or
// below the watermark too: there an absent key says nothing about whose
// files the directory holds (a savepoint's, a retained checkpoint's whose
// record an operator released, another epoch's), while the standing claim
// is the job's current job manager, which wrote the directory for its own
// checkpoint. Otherwise it returns an
// error wrapping ErrNotStanding that says why: above the watermark the
// fence could keep the standing leader from publishing, and anywhere the
// directory may hold state that is not the party's.
func DecideFence(job JobState, epoch uint64, owner string, checkpoint uint64) error {
	switch s := job.Standing(epoch, owner); s {
	case EpochStanding:
		return nil
	case EpochForgotten:
		return fmt.Errorf("epoch %d belongs to the job ID's forgotten incarnation (epochs up to %d): the new incarnation may be writing checkpoint %d's directory: %w",
			epoch, job.ForgottenEpoch, checkpoint, ErrNotStanding)
	default:
		return fmt.Errorf("epoch %d%s is %s (%s): checkpoint %d's directory is the standing claim's to decide (watermark %d): %w",
			epoch, ownerOf(owner), s, claimOf(job), checkpoint, job.Watermark, ErrNotStanding)
	}
}

// claimOf describes the job's standing claim.
func claimOf(job JobState) string {
	if job.Owner == "" {
		return fmt.Sprintf("the job stands unclaimed at epoch %d", job.Epoch)
	}
	return fmt.Sprintf("the standing claim is epoch %d by %q", job.Epoch, job.Owner)
}

// ownerOf names a party's owner in a message, when it has one.
func ownerOf(owner string) string {
	if owner == "" {
		return ""
	}
	return fmt.Sprintf(" of %q", owner)
}
