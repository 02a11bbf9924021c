// Package proc supervises the child processes of the test harnesses and
// tools: a server, a worker, a helper started with Start and ended with
// Stop or Kill.
//
// Contract:
//   - Start runs the command in a process group of its own, so that a
//     signal reaches the child and everything it started, and a Ctrl-C in
//     the caller's terminal does not hit it before the caller stops it in
//     order. The child dies with its parent (Pdeathsig SIGKILL): a killed
//     test binary leaves no server behind. With Options.Detach it runs in a
//     session of its own instead and outlives its parent.
//   - One goroutine waits for the child from the start, so an exited child
//     never lingers as a zombie and Done, Running and Exited see its exit
//     at once.
//   - Signal, Stop and Kill address the whole process group, and never a
//     process that has exited (its pid may be another's by then).
//   - Stop sends SIGTERM (and SIGCONT, as a stopped process takes its
//     SIGTERM only once it runs), waits grace, then sends SIGKILL; it
//     always returns after the exit.
//
// Failure semantics: Stop reports an error wrapping ErrKilled when the
// grace ran out, the exit error when the child failed other than by the
// SIGTERM, and nil for a clean exit or a death by SIGTERM, also when the
// child had exited before. Kill of an exited process is a no-op. Signal to
// an exited process is an error wrapping ErrExited.
package proc
