package workflows

import (
	"fmt"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"go.temporal.io/sdk/workflow"
)

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
func operatorAdvice(p contract.Phase) string {
	switch p {
	case contract.Verifying:
		return "The store has not said whether the reference landed: the state is kept and the job manager must not " +
			"acknowledge the checkpoint. Fix the store, then signal `retry-now`; or signal `abandon` with a reason " +
			"(the state is kept). Nothing forces a discard."
	case contract.Persisting:
		return "The handle is not written yet (the last error says why): nothing is published and nothing discarded. " +
			"Fix the bucket, then signal `retry-now`; or signal `abandon` with a reason (whatever was written is kept)."
	case contract.Discarding:
		return "The reference is proven absent and the state is being deleted (the last error says why it has not finished). " +
			"Fix the bucket, then signal `retry-now`; or signal `abandon` with a reason (what is left is kept)."
	case contract.Published:
		return "Published: the job manager may acknowledge the checkpoint."
	case contract.Discarded:
		return "Discarded: the reference is proven absent and can never land; the checkpoint is not recoverable."
	case contract.Abandoned:
		return "Abandoned: the state is kept for an operator; see the reason in the result."
	case contract.Failed:
		return "Failed: the request was invalid or its data missing; nothing was published."
	}
	return ""
}
