package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// printer writes a command's result to stdout (text, or JSON with --json)
// and progress to stderr, so a script's stdout holds only the result.
type printer struct {
	out, progress io.Writer
	json          bool
}

// result prints v as JSON, or text as it is.
func (p *printer) result(v any, text string) error {
	if p.json {
		enc := json.NewEncoder(p.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("write result: %w", err)
		}
		return nil
	}
	if _, err := fmt.Fprintln(p.out, text); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

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
func statusText(id string, st contract.Status) string {
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
