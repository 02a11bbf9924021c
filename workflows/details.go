package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"
)

// StaticDetails is what a finalization's starter shows on its Web UI page
// for good (the SDK's StaticDetails, markdown): what it finalizes. The
// one-line StaticSummary is Summary.
func StaticDetails(r FinalizeRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n", Summary(r))
	fmt.Fprintf(&b, "- metadata: `%s` (sha256 `%s`)\n", r.MetadataKey, r.MetadataSHA256)
	if r.ExclusivePrefix != "" {
		fmt.Fprintf(&b, "- exclusive state: `%s`\n", r.ExclusivePrefix)
	}
	fmt.Fprintf(&b, "- publish attempts at most: %d\n", r.maxAttempts())
	return b.String()
}

// showDetails keeps the execution's current details (the Web UI's page of
// it, markdown) in step with the status query: where it is, since when,
// what it tried and what an operator can do. It writes no event.
func (f *finalization) showDetails() {
	st := f.status
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** since %s\n\n", st.Phase, st.PhaseSince.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "- publish attempts: %d, verifications: %d, fences: %d\n", st.Attempts, st.Verifications, st.Fences)
	if st.StoreKind != "" {
		fmt.Fprintf(&b, "- store: %s\n", st.StoreKind)
	}
	if st.HandleKey != "" {
		fmt.Fprintf(&b, "- handle: `%s`\n", st.HandleKey)
	}
	if st.LastError != "" {
		fmt.Fprintf(&b, "- last error: %s\n", st.LastError)
	}
	if todo := operatorAdvice(st.Phase); todo != "" {
		fmt.Fprintf(&b, "\n%s\n", todo)
	}
	workflow.SetCurrentDetails(f.ctx, b.String())
}

// operatorAdvice says what an operator can do in a phase.
func operatorAdvice(p Phase) string {
	switch p {
	case Verifying:
		return "The store has not said whether the reference landed: the state is kept and the job manager must not " +
			"acknowledge the checkpoint. Fix the store, then signal `retry-now`; or signal `abandon` with a reason " +
			"(the state is kept). Nothing forces a discard."
	case Published:
		return "Published: the job manager may acknowledge the checkpoint."
	case Discarded:
		return "Discarded: the reference is proven absent and can never land; the checkpoint is not recoverable."
	case Abandoned:
		return "Abandoned: the state is kept for an operator; see the reason in the result."
	case Failed:
		return "Failed: the request was invalid or its data missing; nothing was published."
	}
	return ""
}
