package kubernetes

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// ErrRefused marks a request the API server definitely refused before
// applying it (400, 401, 403, 404 on Create, 405, 415, 422). It wraps stores.ErrInvalid, so the outcome is
// Rejected; the API server's own error stays in the chain for
// apierrors.IsForbidden and friends.
var ErrRefused = fmt.Errorf("refused by the Kubernetes API server: %w", stores.ErrInvalid)

// writeClass is what the CAS loop does with a failed request.
type writeClass int

const (
	// classUnknown: the write may have been applied; report Unknown.
	classUnknown writeClass = iota
	// classReread: definitely not applied because the object changed or
	// is missing; read again and decide again.
	classReread
	// classThrottled: a 429; wait, then read again and decide again.
	classThrottled
	// classRefused: definitely not applied and never will be.
	classRefused
	// classTooLarge: the request body was refused for its size.
	classTooLarge
)

func (c writeClass) String() string {
	return [...]string{"unknown", "reread", "throttled", "refused", "too-large"}[c]
}

// classify sorts an error of one request sent exactly once (MaxRetries(0)).
// create tells a Create (404: the namespace is missing, definite) from an
// Update (404: the ConfigMap went away since the read, read again).
func classify(err error, create bool) writeClass {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		// Transport errors, deadlines, EOF, reset: the request may have
		// reached the server and been applied.
		return classUnknown
	}
	switch code := int(status.Status().Code); {
	case apierrors.IsConflict(err), apierrors.IsAlreadyExists(err):
		return classReread
	case code == http.StatusNotFound && !create:
		return classReread
	case code == http.StatusTooManyRequests:
		return classThrottled
	case code == http.StatusRequestEntityTooLarge:
		return classTooLarge
	case code == http.StatusBadRequest, code == http.StatusUnauthorized, code == http.StatusForbidden,
		code == http.StatusNotFound, code == http.StatusMethodNotAllowed,
		code == http.StatusUnsupportedMediaType, code == http.StatusUnprocessableEntity:
		return classRefused
	default:
		// 5xx (etcd unavailable, timeouts) and anything unexpected.
		return classUnknown
	}
}

// retryAfter is the server's suggested delay of a 429, or fallback.
func retryAfter(err error, fallback time.Duration) time.Duration {
	if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
		return time.Duration(s) * time.Second
	}
	return fallback
}

// failRead turns the error of a read (GET) inside a call into its
// outcome: a refusal is definite, since nothing was written; the rest is
// Unknown, conservatively.
func failRead(err error) error {
	if errors.Is(err, stores.ErrInvalid) {
		return err
	}
	if classify(err, false) == classRefused {
		return fmt.Errorf("read: %w: %w", refusal(err), err)
	}
	return stores.Unknownf(err, "read")
}

// refusal is the sentinel of a definite refusal: access control (401, 403)
// is stores.ErrForbidden, everything else ErrRefused.
func refusal(err error) error {
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		return stores.ErrForbidden
	}
	return ErrRefused
}
