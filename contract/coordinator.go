package contract

import "fmt"

// PublishedReport tells a job's coordinator that a checkpoint was published.
type PublishedReport struct {
	Cluster    string `json:"cluster"`
	Job        string `json:"job"`
	Epoch      uint64 `json:"epoch"`
	Checkpoint uint64 `json:"checkpoint"`
}

// CoordinatorState is the input of JobCoordinator, carried across
// continue-as-new.
type CoordinatorState struct {
	Cluster string `json:"cluster"`
	Job     string `json:"job"`
	// Epoch is the job's claimed epoch as the store said at the last pass;
	// removals are conditional on it. Reports only wake the coordinator:
	// an epoch nobody claimed never reaches a removal.
	Epoch uint64 `json:"epoch"`
	// Removed counts removals over the coordinator's life.
	Removed int `json:"removed"`
	// Deposed: a removal was refused for a stale epoch (a newer claim
	// landed between the pass's read and its removal); removals wait for a
	// report of a newer epoch, whose pass reads the store again.
	Deposed bool `json:"deposed,omitempty"`
	// Uncollected are checkpoints a pass subsumed while their finalization
	// still ran: the tombstone answers that finalization's verify (I7), and
	// a later pass collects it once the finalization has closed.
	Uncollected []Removal `json:"uncollected,omitempty"`
}

// Removal names a checkpoint retention removes and the handle of its state.
type Removal struct {
	Checkpoint uint64 `json:"checkpoint"`
	HandleKey  string `json:"handleKey"`
}

// CoordinatorStatus answers the coordinator's status query.
type CoordinatorStatus struct {
	CoordinatorState
	Passes int `json:"passes"`
	// Retain is the retention setting of the last pass.
	Retain int `json:"retain"`
	// Retained are the checkpoints the last pass kept.
	Retained  []uint64 `json:"retained"`
	LastError string   `json:"lastError,omitempty"`
}

// CoordinatorID is the workflow ID of a job's coordinator.
func CoordinatorID(cluster, job string) string { return fmt.Sprintf("coordinator/%s/%s", cluster, job) }

// Clusters is the cluster the coordinator's job belongs to (the worker's
// tenant gate).
func (s CoordinatorState) Clusters() []string { return []string{s.Cluster} }
