package cluster_test

import (
	"fmt"
	"strings"
	"time"
)

// row is what one scenario came to in one world: the columns of the
// issue's table.
type row struct {
	world, scenario string
	// toRunning is from the scenario's disruption (a crash, a resume) to
	// the job and all its tasks RUNNING; 0 when the scenario has none.
	toRunning time.Duration
	restored  string
	// left counts the chk-N directories of the scenario's jobs at rest;
	// -1 before it was counted.
	left   int
	output string
	steps  []string
}

// manual records a step a person (or their scheduled routine) took.
func (r *row) manual(step string) {
	if step != "" {
		r.steps = append(r.steps, step)
	}
}

// table is the markdown table of the rows.
func table(rows []row) string {
	var b strings.Builder
	b.WriteString("| world | scenario | time to RUNNING | restored checkpoint | checkpoints left | output exact | manual steps |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		ttr, left, steps := "-", "-", "none"
		if r.toRunning > 0 {
			ttr = r.toRunning.Round(100 * time.Millisecond).String()
		}
		if r.left >= 0 {
			left = fmt.Sprint(r.left)
		}
		if len(r.steps) > 0 {
			steps = strings.Join(r.steps, "; ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.world, r.scenario, ttr, r.restored, left, r.output, steps)
	}
	return b.String()
}
