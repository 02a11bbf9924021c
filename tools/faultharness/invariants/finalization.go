package invariants

import (
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// Finalization is one finalization as the checks see it: its request and
// how it ended.
type Finalization struct {
	Request contract.FinalizeRequest
	// Label says where it came from: "random", "closing", a targeted
	// scenario's or an adversarial kind's name, "observed".
	Label string
	// Ended: it was seen to return (Result) or fail (Failure).
	Ended   bool
	Result  contract.FinalizeResult
	Failure string
}

// Subject names the finalization in a finding.
func (f Finalization) Subject() string {
	return fmt.Sprintf("%s checkpoint %d (epoch %d, %s)", f.Request.Job, f.Request.Checkpoint, f.Request.Epoch, f.Label)
}
