package workflows

import (
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
