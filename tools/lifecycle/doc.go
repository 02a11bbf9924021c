// Package lifecycle is the lifecycle model checker: a deterministic,
// seeded, in-process simulation that drives the finalizer's real
// activities (package activities and activities/reconcile) over the real
// embedded store (stores/embedded, so stores/decide.go) and a memory
// bucket (stores/blobstate), and plays everything around them: the job
// managers of several jobs and clusters, their leaders old and new,
// adversarial starters, the coordinator, the reconciler, and Temporal
// itself (which activity runs next, retries, lost replies, timeouts and
// worker crashes between steps).
//
// Contract:
//   - A schedule is a list of steps, each a self-contained datum (the
//     request it starts, the fault it injects), so that a schedule replays
//     exactly and any sub-list of it is a schedule too. Run generates one
//     from a seed, executing each step as it is chosen; Replay executes a
//     given list.
//   - After every step the checker reads what the store and the bucket
//     actually hold and judges the properties (properties.go): invariants
//     I1, I2, I6 and I7 of docs/design.md, truth to the job manager (a
//     Published or Discarded answer and a restore point agree with the
//     store's history; a standing leader's checkpoint directory stays
//     while its finalization can still publish, and no other token fences
//     it out), a retired job holding no reference, shared state,
//     savepoints and retained state kept, only the standing claim (epoch
//     and owner) retiring or removing, and tenant isolation (nothing of a
//     cluster the worker does not serve read or written, no error
//     printing a digest of another tenant's object the request did not
//     carry). At the end it settles every finalization without faults and
//     judges I4 and I5, then, a day later (closed histories expired, the
//     reconciler's floors passed), I3: an applied reconcile run discards
//     or reports every handle no reference of its token points at.
//   - A failing schedule is shrunk (delta debugging: drop steps while the
//     same property still fails) and printed as a numbered step list with
//     its seed.
//   - Every activity call goes through one function, worker.invoke, and
//     from there through the worker's interceptors (the tenant gate) on a
//     real activity context of the SDK (attempt.go), as a worker runs an
//     attempt.
//
// The workflows' decisions that live in workflow code (after a publish,
// after a verify, a retention pass, a reconcile run) are mirrored in small
// step functions, each citing the workflow it follows; pure helpers of
// package activities (RetentionPlan) are called, not copied.
//
// Nothing in internal/ may import this package (internal/checks/layering).
package lifecycle
