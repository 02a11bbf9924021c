package kubernetes

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Labels and annotations of a job's ConfigMap.
const (
	// annotationPrefix starts every annotation of this store: another
	// annotation under it was not written by this version.
	annotationPrefix = "checkpoint-finalizer.io/"

	LabelManagedBy      = "app.kubernetes.io/managed-by"
	ManagedBy           = "checkpoint-finalizer"
	LabelCluster        = "checkpoint-finalizer.io/cluster"
	LabelJob            = "checkpoint-finalizer.io/job"
	AnnotationEpoch     = "checkpoint-finalizer.io/epoch"
	AnnotationOwner     = "checkpoint-finalizer.io/owner"
	AnnotationWatermark = "checkpoint-finalizer.io/watermark"
	AnnotationRetired   = "checkpoint-finalizer.io/retired"
	// AnnotationForgottenEpoch: the last epoch of a forgotten incarnation
	// of the job ID; claims continue above it.
	AnnotationForgottenEpoch = "checkpoint-finalizer.io/forgotten-epoch"
	// AnnotationStateVersion: the format of the job state annotations.
	AnnotationStateVersion = "checkpoint-finalizer.io/state-version"

	// KeyPrefix starts every checkpoint key; the ID follows zero-padded to
	// 19 digits, the format Flink uses, so keys of IDs below 10^19 also sort.
	KeyPrefix = "checkpointID-"

	nameSuffix = "checkpoints"
)

// ConfigMapName returns the name of the job's ConfigMap,
// "<cluster>.<job>.checkpoints". A DNS-1123 label cannot contain '.', so
// the name splits back into exactly one (cluster, job): no two jobs collide.
// It is at most 63+1+63+1+11 = 139 characters, a valid DNS-1123 subdomain.
func ConfigMapName(job stores.JobID) (string, error) {
	if err := job.Validate(); err != nil {
		return "", err
	}
	name := job.Cluster + "." + job.Job + "." + nameSuffix
	// Defensive: stores' validation already implies this.
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", fmt.Errorf("configmap name %q: %s: %w", name, strings.Join(errs, "; "), stores.ErrInvalid)
	}
	return name, nil
}

// checkpointKey is the data key of checkpoint id.
func checkpointKey(id uint64) string { return fmt.Sprintf("%s%019d", KeyPrefix, id) }

// parseCheckpointKey returns the checkpoint of a data key. ok is false for
// keys that are not ours; a key under our prefix that does not round-trip
// (say "checkpointID-7") is an error, so that two keys can never alias one
// checkpoint.
func parseCheckpointKey(key string) (id uint64, ok bool, err error) {
	digits, found := strings.CutPrefix(key, KeyPrefix)
	if !found {
		return 0, false, nil
	}
	id, err = strconv.ParseUint(digits, 10, 64)
	if err != nil || id == 0 || checkpointKey(id) != key {
		return 0, true, fmt.Errorf("malformed checkpoint key %q (want %s%%019d of an ID from 1): %w", key, KeyPrefix, stores.ErrCorruptState)
	}
	return id, true, nil
}

// jobLabels identify the job a ConfigMap belongs to.
func jobLabels(job stores.JobID) map[string]string {
	return map[string]string{LabelManagedBy: ManagedBy, LabelCluster: job.Cluster, LabelJob: job.Job}
}
