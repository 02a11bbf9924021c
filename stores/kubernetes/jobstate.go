package kubernetes

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// jobStateOf reads the job state from the annotations. A missing annotation
// is the zero value (a ConfigMap created by Verify before any claim); a
// present but malformed one is an error, never guessed.
func jobStateOf(cm *corev1.ConfigMap) (stores.JobState, error) {
	var s stores.JobState
	if cm == nil {
		return s, nil
	}
	a := cm.Annotations
	var err error
	if s.Epoch, err = parseUintAnnotation(a, AnnotationEpoch); err != nil {
		return s, err
	}
	if s.Watermark, err = parseUintAnnotation(a, AnnotationWatermark); err != nil {
		return s, err
	}
	if s.ForgottenEpoch, err = parseUintAnnotation(a, AnnotationForgottenEpoch); err != nil {
		return s, err
	}
	s.Owner = a[AnnotationOwner]
	if v, ok := a[AnnotationRetired]; ok {
		if s.Retired, err = strconv.ParseBool(v); err != nil {
			return s, fmt.Errorf("annotation %s=%q: %w", AnnotationRetired, v, err)
		}
	}
	return s, nil
}

func parseUintAnnotation(a map[string]string, key string) (uint64, error) {
	v, ok := a[key]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("annotation %s=%q: %w", key, v, err)
	}
	return n, nil
}

// setJobState writes all five annotations, zero values included, so that
// an operator reading the ConfigMap sees the whole state.
func setJobState(cm *corev1.ConfigMap, s stores.JobState) {
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[AnnotationEpoch] = strconv.FormatUint(s.Epoch, 10)
	cm.Annotations[AnnotationOwner] = s.Owner
	cm.Annotations[AnnotationWatermark] = strconv.FormatUint(s.Watermark, 10)
	cm.Annotations[AnnotationRetired] = strconv.FormatBool(s.Retired)
	cm.Annotations[AnnotationForgottenEpoch] = strconv.FormatUint(s.ForgottenEpoch, 10)
}
