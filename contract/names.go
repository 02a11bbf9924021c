package contract

// The workflow contract for callers in any language.
const (
	DefaultTaskQueue = "checkpoint-finalizer"

	FinalizeWorkflow    = "FinalizeCheckpoint"
	CoordinatorWorkflow = "JobCoordinator"
	SubsumeWorkflow     = "SubsumeCheckpoint"
	ClaimWorkflow       = "ClaimEpoch"
	RetireWorkflow      = "RetireJob"
	ReconcileWorkflow   = "Reconcile"
	LatestWorkflow      = "LatestCheckpoint"

	// StatusQuery answers a Status (finalization), a CoordinatorStatus or a
	// ReconcileReport.
	StatusQuery = "status"
	// RetryNowSignal ends the current verify backoff of a finalization.
	RetryNowSignal = "retry-now"
	// AbandonSignal (payload: a reason string) ends a Verifying
	// finalization as Abandoned, its state kept.
	AbandonSignal = "abandon"
	// PublishedSignal reports a Published checkpoint to its job's coordinator.
	PublishedSignal = "published"

	// DefaultMaxPublishAttempts bounds publishing when a request names none.
	DefaultMaxPublishAttempts = 3
)
