package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// Outcomes of one finalization in a signal report.
const (
	outcomeSignalled   = "signalled"
	outcomeWouldSignal = "would-signal"
	outcomeSkipped     = "skipped"
	outcomeFailed      = "failed"
)

// signalReport is what retry-now and abandon print: a result per
// workflow ID, one for a single finalization.
type signalReport struct {
	Signal string `json:"signal"`
	Reason string `json:"reason,omitempty"`
	DryRun bool   `json:"dryRun"`
	// OlderThan is the batch's threshold; "" for one finalization.
	OlderThan string `json:"olderThan,omitempty"`
	// Effect says what a sent signal does.
	Effect  string         `json:"effect"`
	Results []signalResult `json:"results"`
}

type signalResult struct {
	// Kind is client.KindFinalization or client.KindRetirement.
	Kind       string         `json:"kind,omitempty"`
	WorkflowID string         `json:"workflowId"`
	RunID      string         `json:"runId"`
	Cluster    string         `json:"cluster"`
	Job        string         `json:"job"`
	Epoch      uint64         `json:"epoch"`
	Checkpoint uint64         `json:"checkpoint"`
	Phase      contract.Phase `json:"phase"`
	// Outcome: signalled, would-signal (dry run), skipped (not Verifying)
	// or failed; Detail says why for the last two.
	Outcome string `json:"outcome"`
	Detail  string `json:"detail,omitempty"`
}

func (r signalReport) count(outcome string) int {
	n := 0
	for _, res := range r.Results {
		if res.Outcome == outcome {
			n++
		}
	}
	return n
}

// err is the batch's error once its report is printed: errSignalsFailed
// when a signal was not sent, so that a partial failure never exits 0;
// skipped ones (not Verifying) are no failure.
func (r signalReport) err() error {
	if n := r.count(outcomeFailed); n > 0 {
		return fmt.Errorf("%s: %w: %d of %d failed, see the report", r.Signal, errSignalsFailed, n, len(r.Results))
	}
	return nil
}

// text is the report as text: one finalization in a sentence, a batch as
// a table (wide: with the run and the identity) and a count line.
func (r signalReport) text(wide bool) string {
	if r.OlderThan == "" && len(r.Results) == 1 {
		res := r.Results[0]
		return fmt.Sprintf("%s sent to %s (run %s, %s)%s: %s", r.Signal, res.WorkflowID, res.RunID, res.Phase, r.reasonText(), r.Effect)
	}
	if len(r.Results) == 0 {
		return fmt.Sprintf("no finalization in one phase for longer than %s: nothing to signal", r.OlderThan)
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	header := "WORKFLOW ID\tPHASE\tOUTCOME\tDETAIL"
	if wide {
		header += "\tRUN ID\tCLUSTER\tJOB\tEPOCH\tCHECKPOINT"
	}
	fmt.Fprintln(tw, header)
	for _, res := range r.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s", res.WorkflowID, res.Phase, res.Outcome, orDash(res.Detail))
		if wide {
			fmt.Fprintf(tw, "\t%s\t%s\t%s\t%d\t%d", res.RunID, res.Cluster, res.Job, res.Epoch, res.Checkpoint)
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush() // a strings.Builder does not fail
	if r.DryRun {
		fmt.Fprintf(&b, "dry run, nothing sent: %s%s would go to %d, %d skipped", r.Signal, r.reasonText(), r.count(outcomeWouldSignal), r.count(outcomeSkipped))
	} else {
		fmt.Fprintf(&b, "%s%s: %d signalled, %d skipped, %d failed", r.Signal, r.reasonText(), r.count(outcomeSignalled), r.count(outcomeSkipped), r.count(outcomeFailed))
	}
	fmt.Fprintf(&b, "\n%s", r.Effect)
	return b.String()
}

func (r signalReport) reasonText() string {
	if r.Reason == "" {
		return ""
	}
	return fmt.Sprintf(" (reason %q)", r.Reason)
}
