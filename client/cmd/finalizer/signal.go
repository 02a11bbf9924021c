package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

// errSignalsFailed: a batch ran, but some signals could not be sent; the
// report (printed already) names them. Exit 1, as reconcile's unsettled
// items: repeating the command retries them.
var errSignalsFailed = errors.New("some signals were not sent")

// operatorSignal is what retry-now and abandon differ in; signalCommand
// is the rest, theirs alike.
type operatorSignal struct {
	name, summary, long, example string
	// flags registers the signal's own flags (abandon's --reason) and
	// returns their check; nil for none.
	flags func(fs *pflag.FlagSet) func() error
	send  func(ctx context.Context, f *client.Finalization) error
	// effect is what a sent signal does, for the text output.
	effect string
	// reason is the abandon reason the report shows, "" for none.
	reason func() string
}

func signalCommand(a *app, sig operatorSignal) *cobra.Command {
	var t target
	cmd := &cobra.Command{
		Use:     sig.name,
		Short:   sig.summary,
		Long:    sig.long,
		Example: "  " + sig.example,
	}
	fs := cmd.Flags()
	t.register(fs)
	own := func() error { return nil }
	if sig.flags != nil {
		own = sig.flags(fs)
	}
	check := func() error {
		return joinProblems(t.check(sig.name, fs), own())
	}
	return a.connected(cmd, nil, check, func(ctx context.Context, c *client.Client, out *printer) error {
		rep := signalReport{Signal: sig.name, Reason: sig.reason(), DryRun: t.dryRun, Effect: sig.effect}
		if !t.stuck {
			f, phase, err := c.Signalable(ctx, t.workflowID())
			if err != nil {
				return err
			}
			if err := sig.send(ctx, f); err != nil {
				return err
			}
			kind := client.KindFinalization
			if phase == client.Retiring {
				kind = client.KindRetirement
			}
			rep.Results = []signalResult{{Kind: kind, WorkflowID: f.WorkflowID, RunID: f.RunID, Cluster: t.id.cluster, Job: t.id.job,
				Epoch: t.id.epoch, Checkpoint: t.id.checkpoint, Phase: phase, Outcome: outcomeSignalled}}
			return out.result(rep, rep.text(out.wide()))
		}
		list, err := c.ListStuck(ctx, t.olderThan)
		if err != nil {
			return err
		}
		retirements, err := c.ListStuckRetirements(ctx, t.olderThan)
		if err != nil {
			return err
		}
		list = append(list, retirements...)
		rep.OlderThan = t.olderThan.String()
		rep.Results = []signalResult{} // JSON: [] rather than null
		for _, s := range list {
			if t.selects(s.Cluster, s.Job) {
				rep.Results = append(rep.Results, signalOne(ctx, c, sig, s, t.dryRun))
			}
		}
		if err := out.result(rep, rep.text(out.wide())); err != nil {
			return err
		}
		return rep.err()
	})
}

// signalOne signals one listed finalization if its phase reads operator
// signals now (the listing lags; the execution itself is read again), and
// says what came of it; a dry run only says whether the listing shows it in
// such a phase.
func signalOne(ctx context.Context, c *client.Client, sig operatorSignal, s client.Stuck, dryRun bool) signalResult {
	r := signalResult{Kind: s.Kind, WorkflowID: s.WorkflowID, RunID: s.RunID, Cluster: s.Cluster, Job: s.Job,
		Epoch: s.Epoch, Checkpoint: s.Checkpoint, Phase: s.Phase}
	if dryRun {
		if s.Kind == client.KindRetirement || s.Phase.ReadsOperatorSignals() {
			r.Outcome = outcomeWouldSignal
		} else {
			r.Outcome, r.Detail = outcomeSkipped, notReadIn(s.Phase)
		}
		return r
	}
	f, phase, err := c.Signalable(ctx, s.WorkflowID)
	if nv, ok := errors.AsType[*client.NotSignalableError](err); ok {
		r.Phase, r.Outcome, r.Detail = nv.Phase, outcomeSkipped, notReadIn(nv.Phase)
		if nv.Closed {
			r.Detail = "ended since it was listed"
		}
		return r
	}
	if err == nil {
		r.RunID, r.Phase = f.RunID, phase
		err = sig.send(ctx, f)
	}
	if err != nil {
		r.Outcome, r.Detail = outcomeFailed, err.Error()
		return r
	}
	r.Outcome = outcomeSignalled
	return r
}

func notReadIn(p contract.Phase) string {
	return fmt.Sprintf("%s does not read operator signals (Persisting, Verifying and Discarding do)", p)
}
