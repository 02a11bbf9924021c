package lifecycle

import (
	"context"
	"fmt"
	"strings"
)

// stepsPerSchedule bounds a generated schedule.
const stepsPerSchedule = 60

// failure is a schedule that broke a property.
type failure struct {
	seed  uint64
	steps []step
	// at is the index of the step after which the property failed (len
	// steps when it failed at rest), by the culprit that step was.
	at int
	by string
	v  violation
}

// signature names a failure's kind for grouping: the property, what of
// it broke, and the step that broke it (for a finalization's step, the
// standing of its epoch).
func (f failure) signature() string { return f.v.property + " / " + f.v.kind + " / " + f.by }

// culprit describes the step after which a property failed.
func culprit(w *world, s step) string {
	if a, ok := s.(advanceStep); ok {
		if f, ok := w.fins[a.fin]; ok {
			return "a step of a finalization " + w.standing(f)
		}
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", s), "lifecycle.")
}

// generate runs a new schedule from seed on w, choosing each step as it
// goes, and returns its failure (nil if it held) and how many steps ran.
func generate(ctx context.Context, w *world, seed uint64) (*failure, int, error) {
	if err := w.reset(); err != nil {
		return nil, 0, err
	}
	g := newGenerator(seed, w)
	var steps []step
	for len(steps) < stepsPerSchedule {
		for _, s := range g.next() {
			s.run(ctx, w)
			steps = append(steps, s)
			if err := w.check(ctx); err != nil {
				return nil, len(steps), err
			}
			if len(w.found) > 0 {
				return &failure{seed: seed, steps: steps, at: len(steps) - 1, by: culprit(w, s), v: w.found[0]}, len(steps), nil
			}
		}
	}
	if err := w.checkAtRest(ctx); err != nil {
		return nil, len(steps), err
	}
	if len(w.found) > 0 {
		return &failure{seed: seed, steps: steps, at: len(steps), by: "at rest", v: w.found[0]}, len(steps), nil
	}
	return nil, len(steps), nil
}

// replay runs steps on w as given and returns what each did and the
// first violation of property (any property when property is ""), with
// the index of the step after which it came.
func replay(ctx context.Context, w *world, steps []step, property string) ([]string, *failure, error) {
	if err := w.reset(); err != nil {
		return nil, nil, err
	}
	outcomes := make([]string, 0, len(steps))
	hit := func(at int, by string) *failure {
		for _, v := range w.found {
			if property == "" || v.property == property {
				return &failure{steps: steps, at: at, by: by, v: v}
			}
		}
		return nil
	}
	for i, s := range steps {
		outcomes = append(outcomes, s.run(ctx, w))
		if err := w.check(ctx); err != nil {
			return nil, nil, err
		}
		if f := hit(i, culprit(w, s)); f != nil {
			return outcomes, f, nil
		}
	}
	if err := w.checkAtRest(ctx); err != nil {
		return nil, nil, err
	}
	return outcomes, hit(len(steps), "at rest"), nil
}

// shrink drops steps from a failing schedule while it still breaks the
// same property (delta debugging: chunks of halving size, then single
// steps, until no step can go), and cuts it after the failing step.
func shrink(ctx context.Context, w *world, f *failure) (*failure, error) {
	cur := f.steps[:min(f.at+1, len(f.steps))]
	for chunk := len(cur) / 2; chunk >= 1; {
		removed := false
		for start := 0; start+chunk <= len(cur); {
			try := append(append([]step{}, cur[:start]...), cur[start+chunk:]...)
			_, g, err := replay(ctx, w, try, f.v.property)
			if err != nil {
				return nil, err
			}
			if g != nil {
				cur, removed = try[:min(g.at+1, len(try))], true
				continue
			}
			start += chunk
		}
		if !removed {
			chunk /= 2
		}
	}
	_, g, err := replay(ctx, w, cur, f.v.property)
	if err != nil || g == nil {
		return nil, fmt.Errorf("the shrunk schedule of seed %d no longer fails (%v): the simulation is not deterministic", f.seed, err)
	}
	g.seed = f.seed
	return g, nil
}

// describe prints a failure as a numbered step list with what each step
// did, ready to paste into a report.
func describe(ctx context.Context, w *world, f *failure) string {
	outcomes, _, err := replay(ctx, w, f.steps, f.v.property)
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d (replay: -model.seed=%d): %s\n  [%s]\n", f.seed, f.seed, f.v, f.signature())
	for i, s := range f.steps {
		fmt.Fprintf(&b, "  %2d. %s\n", i+1, s)
		if err == nil && i < len(outcomes) && outcomes[i] != "" {
			fmt.Fprintf(&b, "      -> %s\n", outcomes[i])
		}
	}
	if f.at >= len(f.steps) {
		b.WriteString("  at rest, every finalization run to its end without faults, then a retention pass per job:\n")
		for _, s := range w.settled {
			fmt.Fprintf(&b, "      %s\n", s)
		}
	}
	return b.String()
}
