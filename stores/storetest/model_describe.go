package storetest

import (
	"fmt"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Descriptions of calls and model states for porcupine's visualization and
// the failure log.

func describeCall(c call, a answer) string {
	var in string
	switch c.Kind {
	case opClaim:
		in = fmt.Sprintf("epoch %d %s", c.Epoch, c.Owner)
	case opPublish:
		in = fmt.Sprintf("#%d epoch %d %s@%d", c.Key, c.Epoch, c.Token, c.Attempt)
		if c.Claimant {
			in += " as " + c.Owner
		}
	case opVerify:
		in = fmt.Sprintf("#%d %s@%d", c.Key, c.Token, c.Attempt)
	case opSubsume:
		in = fmt.Sprintf("#%d epoch %d", c.Key, c.Epoch)
	case opRetire:
		in = fmt.Sprintf("epoch %d keep %t", c.Epoch, c.Keep)
	case opCollect:
		in = fmt.Sprintf("aged %t", c.Aged)
	case opQuarantine, opCollectSubsumed:
		in = fmt.Sprintf("#%d %s", c.Key, c.Token)
	case opRead:
		in = fmt.Sprintf("#%d", c.Key)
	}
	return fmt.Sprintf("%s(%s) -> %s", c.Kind, in, describeAnswer(c.Kind, a))
}

func describeAnswer(k opKind, a answer) string {
	switch {
	case a.Unknown:
		return "unknown (possibly applied): " + shorten(a.Err)
	case a.Malformed != "":
		return "malformed: " + a.Malformed
	case a.Rejection != "":
		return "rejected: " + a.Rejection
	}
	switch k {
	case opVerify:
		return a.Verdict.String()
	case opCollect:
		return fmt.Sprintf("%d collected", a.Count)
	case opRead:
		return describeSlot(a.Entry)
	case opReadJob:
		return describeJob(a.State)
	case opList, opListEntries:
		return describeKeys(a.Keys)
	case opListJobs:
		return fmt.Sprintf("listed %t", a.Listed)
	}
	return "ok"
}

func describeModel(m jobModel) string {
	return describeJob(m.Job) + " " + describeKeys(m.Keys)
}

func describeJob(j stores.JobState) string {
	s := fmt.Sprintf("job{epoch %d %q watermark %d", j.Epoch, j.Owner, j.Watermark)
	if j.Retired {
		s += " retired"
	}
	if j.ForgottenEpoch != 0 {
		s += fmt.Sprintf(" forgotten %d", j.ForgottenEpoch)
	}
	return s + "}"
}

func describeKeys(ks keys) string {
	var parts []string
	for n, s := range ks {
		if s != (slot{}) {
			parts = append(parts, fmt.Sprintf("#%d %s", n, describeSlot(s)))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func describeSlot(s slot) string {
	switch {
	case s.Published:
		return fmt.Sprintf("%s@%d", s.Reference.Token, s.Reference.Attempt)
	case s.Tombstoned:
		return fmt.Sprintf("%s(%s<=%d)", s.Tombstone.Reason, s.Tombstone.Token, s.Tombstone.FencedUpTo)
	}
	return "absent"
}

func shorten(s string) string {
	if len(s) > 160 {
		return s[:160] + "..."
	}
	return s
}
