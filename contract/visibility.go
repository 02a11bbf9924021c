package contract

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
)

// Custom search attributes; the namespace must have them registered (see
// SearchAttributes). The Web UI and CLI filter on them, e.g. the stuck ones:
//
//	FinalizationPhase = "Verifying" AND PhaseSince < "<now - 5m>"
var (
	AttrCluster    = temporal.NewSearchAttributeKeyKeyword("CheckpointCluster")
	AttrJob        = temporal.NewSearchAttributeKeyKeyword("CheckpointJob")
	AttrEpoch      = temporal.NewSearchAttributeKeyInt64("CheckpointEpoch")
	AttrCheckpoint = temporal.NewSearchAttributeKeyInt64("CheckpointID")
	AttrPhase      = temporal.NewSearchAttributeKeyKeyword("FinalizationPhase")
	AttrPhaseSince = temporal.NewSearchAttributeKeyTime("PhaseSince")
	AttrStoreKind  = temporal.NewSearchAttributeKeyKeyword("StoreKind")
)

// SearchAttributes lists the custom search attributes by name and type, as
// `temporal operator search-attribute create` and the dev server's
// --search-attribute flag take them.
func SearchAttributes() map[string]string {
	return map[string]string{
		AttrCluster.GetName():    "Keyword",
		AttrJob.GetName():        "Keyword",
		AttrEpoch.GetName():      "Int",
		AttrCheckpoint.GetName(): "Int",
		AttrPhase.GetName():      "Keyword",
		AttrPhaseSince.GetName(): "Datetime",
		AttrStoreKind.GetName():  "Keyword",
	}
}

// Memo keys of a finalization, as its starter and the workflow write them.
const (
	MemoSummary     = "summary"
	MemoContentHash = "contentHash"
	// MemoPath, set by the starter to PathVersion, records at the start
	// which version of the finalization's path the execution runs, so that
	// its first workflow task records none: no version marker and no
	// TemporalChangeVersion upsert, two history events and a visibility
	// write fewer. Without it (or with another value) the worker records
	// its choice itself, as it always has.
	MemoPath = "path"
)

// PathVersion is the version of the finalization's path a starter asks
// for in MemoPath: the fast path with retention in the background.
const PathVersion = 2

// Summary is the memo summary of a finalization, as the Web UI lists it.
func Summary(r FinalizeRequest) string {
	kind := "checkpoint"
	if r.Savepoint {
		kind = "savepoint"
	}
	return fmt.Sprintf("%s %d of %s/%s (epoch %d)", kind, r.Checkpoint, r.Cluster, r.Job, r.Epoch)
}

// StaticDetails is what a finalization's starter shows on its Web UI page
// for good (the SDK's StaticDetails, markdown): what it finalizes. The
// one-line StaticSummary is Summary.
func StaticDetails(r FinalizeRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n", Summary(r))
	fmt.Fprintf(&b, "- metadata: `%s` (sha256 `%s`)\n", r.MetadataKey, r.MetadataSHA256)
	if r.ExclusivePrefix != "" {
		fmt.Fprintf(&b, "- exclusive state: `%s`\n", r.ExclusivePrefix)
	}
	fmt.Fprintf(&b, "- publish attempts at most: %d\n", r.MaxAttempts())
	return b.String()
}
