package invariants

import (
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// OutcomeName is how a finalization's end is counted in the report.
func OutcomeName(res contract.FinalizeResult, failure string) string {
	switch {
	case failure != "":
		return "WorkflowFailed"
	case res.Phase == "":
		return "NotEnded"
	}
	return string(res.Phase)
}

// DescribeEntry says what a key holds, in a finding's words.
func DescribeEntry(e stores.Entry) string {
	switch {
	case e.Reference != nil:
		return fmt.Sprintf("a reference of token %s attempt %d", Short(e.Reference.Token), e.Reference.Attempt)
	case e.Tombstone != nil:
		return fmt.Sprintf("a %s tombstone of token %s up to attempt %d", e.Tombstone.Reason, Short(e.Tombstone.Token), e.Tombstone.FencedUpTo)
	}
	return "nothing"
}

// Short is a token's first characters, enough to tell it in a finding.
func Short(token string) string {
	if len(token) > 8 {
		return token[:8]
	}
	return token
}

// Clip shortens the SDK's nested error texts for the report.
func Clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
