package kubernetes

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// stateVersion is the format of the job state annotations. A ConfigMap of
// format version 1 carries the same five annotations without
// AnnotationStateVersion (that format's writer wrote all five on every
// write, Verify's first Create included): it is read alike and gets the
// version with its next write.
const stateVersion = "2"

// stateAnnotations are the job state's annotations, all required.
var stateAnnotations = []string{
	AnnotationEpoch, AnnotationOwner, AnnotationWatermark, AnnotationRetired, AnnotationForgottenEpoch,
}

// jobStateOf reads the job state from the annotations: the zero state when
// there is no ConfigMap (never claimed). A ConfigMap of ours always carries
// every annotation, so one missing (kubectl annotate ...-, a GitOps
// replace), malformed, of another version or inconsistent is refused with
// stores.ErrCorruptState, never read as zero.
func jobStateOf(cm *corev1.ConfigMap) (stores.JobState, error) {
	var s stores.JobState
	if cm == nil {
		return s, nil
	}
	a := cm.Annotations
	if v, ok := a[AnnotationStateVersion]; ok && v != stateVersion {
		return s, fmt.Errorf("annotation %s=%q: unsupported version (want %q, or none as format version 1 wrote): %w",
			AnnotationStateVersion, v, stateVersion, stores.ErrCorruptState)
	}
	for _, k := range stateAnnotations {
		if _, ok := a[k]; !ok {
			return s, fmt.Errorf("annotation %s missing (every job ConfigMap carries %v): %w", k, stateAnnotations, stores.ErrCorruptState)
		}
	}
	var err error
	if s.Epoch, err = parseUint(a, AnnotationEpoch); err != nil {
		return s, err
	}
	if s.Watermark, err = parseUint(a, AnnotationWatermark); err != nil {
		return s, err
	}
	if s.ForgottenEpoch, err = parseUint(a, AnnotationForgottenEpoch); err != nil {
		return s, err
	}
	switch v := a[AnnotationRetired]; v {
	case "true", "false":
		s.Retired = v == "true"
	default:
		return s, fmt.Errorf("annotation %s=%q: want true or false: %w", AnnotationRetired, v, stores.ErrCorruptState)
	}
	s.Owner = a[AnnotationOwner]
	if err := s.Consistent(); err != nil {
		return s, fmt.Errorf("annotations: %w", err)
	}
	return s, nil
}

// parseUint accepts exactly what strconv.FormatUint writes: "07" or "+7"
// were not written by this store.
func parseUint(a map[string]string, key string) (uint64, error) {
	v := a[key]
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || strconv.FormatUint(n, 10) != v {
		return 0, fmt.Errorf("annotation %s=%q: not a decimal number as this store writes it: %w", key, v, stores.ErrCorruptState)
	}
	return n, nil
}

// setJobState writes every annotation, zero values included, so that an
// operator reading the ConfigMap sees the whole state, and one removed by
// hand is seen as removed.
func setJobState(cm *corev1.ConfigMap, s stores.JobState) {
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[AnnotationStateVersion] = stateVersion
	cm.Annotations[AnnotationEpoch] = strconv.FormatUint(s.Epoch, 10)
	cm.Annotations[AnnotationOwner] = s.Owner
	cm.Annotations[AnnotationWatermark] = strconv.FormatUint(s.Watermark, 10)
	cm.Annotations[AnnotationRetired] = strconv.FormatBool(s.Retired)
	cm.Annotations[AnnotationForgottenEpoch] = strconv.FormatUint(s.ForgottenEpoch, 10)
}
