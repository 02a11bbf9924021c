package main

import (
	"fmt"
	"io"
	"time"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

// printer writes a command's result to stdout (text, or the --output
// format) and progress to stderr, so a script's stdout holds only the
// result.
type printer struct {
	out, progress io.Writer
	format        format
}

// result prints v as JSON or YAML, or text as it is (-o wide: the text a
// command built for wide()).
func (p *printer) result(v any, text string) error {
	if err := encode(p.out, p.format, v, text); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

// wide tells a command with a table to print every column.
func (p *printer) wide() bool { return p.format == formatWide }

// status prints one progress report (stderr, always text: it is for eyes).
func (p *printer) status(id string, st contract.Status) {
	line := fmt.Sprintf("%s %s %s attempts=%d verifications=%d fences=%d",
		time.Now().UTC().Format("15:04:05.000"), id, st.Phase, st.Attempts, st.Verifications, st.Fences)
	if st.LastError != "" {
		line += " last error: " + st.LastError
	}
	fmt.Fprintln(p.progress, line)
}

// statusText is the status command's text output.
func statusText(id string, o statusOutput) string {
	st := o.Status
	s := fmt.Sprintf("%s\n  phase:         %s since %s\n  started:       %s\n  attempts:      %d\n  verifications: %d\n  fences:        %d",
		id, st.Phase, st.PhaseSince.UTC().Format(time.RFC3339), st.StartedAt.UTC().Format(time.RFC3339),
		st.Attempts, st.Verifications, st.Fences)
	if st.HandleKey != "" {
		s += "\n  handle:        " + st.HandleKey
	}
	if st.StoreKind != "" {
		s += "\n  store:         " + st.StoreKind
	}
	if st.LastError != "" {
		s += "\n  last error:    " + st.LastError
	}
	return s + pendingText(o.PendingActivities)
}

// describedText is status's text output from the server alone.
func describedText(d client.Described) string {
	s := fmt.Sprintf("%s (from the server: the workflow did not answer)\n  phase:         %s since %s\n  started:       %s\n  execution:     %s",
		d.WorkflowID, d.Phase, d.PhaseSince.UTC().Format(time.RFC3339), d.StartTime.UTC().Format(time.RFC3339), d.ExecutionStatus)
	if d.StoreKind != "" {
		s += "\n  store:         " + d.StoreKind
	}
	if d.LastError != "" {
		s += "\n  last error:    " + d.LastError
	}
	return s + pendingText(d.PendingActivities)
}

// pendingText is the pending activities' lines of status's text output.
func pendingText(pending []client.PendingActivity) string {
	var s string
	for _, p := range pending {
		s += fmt.Sprintf("\n  pending:       %s, attempt %d, %s", p.Type, p.Attempt, p.State)
		if p.NextAttempt != nil && time.Until(*p.NextAttempt) >= time.Second {
			s += fmt.Sprintf(", next attempt in %s", time.Until(*p.NextAttempt).Round(time.Second))
		}
	}
	return s
}

// resultText is finalize --wait's text output.
func resultText(id string, res contract.FinalizeResult) string {
	s := fmt.Sprintf("%s %s after %d publish attempt(s)", id, res.Phase, res.Attempts)
	if res.HandleKey != "" {
		s += ", handle " + res.HandleKey
	}
	if res.Reason != "" {
		s += ": " + res.Reason
	}
	return s
}
