package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

func TestClassify(t *testing.T) {
	cm := schema.GroupResource{Resource: "configmaps"}
	ns := schema.GroupResource{Resource: "namespaces"}
	wrap := func(err error) error { return fmt.Errorf("update configmap x/y: %w", err) }
	cases := []struct {
		name   string
		err    error
		create bool
		want   writeClass
	}{
		{"409 conflict", apierrors.NewConflict(cm, "n", errors.New("rv")), false, classReread},
		{"already exists", apierrors.NewAlreadyExists(cm, "n"), true, classReread},
		{"404 on update", apierrors.NewNotFound(cm, "n"), false, classReread},
		{"404 on create: namespace missing", apierrors.NewNotFound(ns, "gone"), true, classRefused},
		{"429", apierrors.NewTooManyRequests("slow down", 1), false, classThrottled},
		{"403", apierrors.NewForbidden(cm, "n", errors.New("rbac")), false, classRefused},
		{"401", apierrors.NewUnauthorized("who"), false, classRefused},
		{"400", apierrors.NewBadRequest("bad"), false, classRefused},
		{"422", apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "n", field.ErrorList{field.Forbidden(field.NewPath("data"), "immutable")}), false, classRefused},
		{"413", apierrors.NewRequestEntityTooLargeError("big"), false, classTooLarge},
		{"500", apierrors.NewInternalError(errors.New("etcdserver: request timed out")), false, classUnknown},
		{"503", apierrors.NewServiceUnavailable("later"), false, classUnknown},
		{"504", apierrors.NewTimeoutError("timeout", 1), false, classUnknown},
		{"deadline", &url.Error{Op: "Put", URL: "https://x", Err: context.DeadlineExceeded}, false, classUnknown},
		{"eof", &url.Error{Op: "Put", URL: "https://x", Err: io.EOF}, false, classUnknown},
		{"reset", &url.Error{Op: "Put", URL: "https://x", Err: syscall.ECONNRESET}, false, classUnknown},
		{"refused dial", &url.Error{Op: "Put", URL: "https://x", Err: syscall.ECONNREFUSED}, false, classUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, classify(wrap(c.err), c.create))
		})
	}
}

func TestErrRefusedIsRejected(t *testing.T) {
	err := fmt.Errorf("publish: %w: %w", ErrRefused, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "n", errors.New("no")))
	assert.Equal(t, stores.Rejected, stores.OutcomeOf(err))
	assert.True(t, apierrors.IsForbidden(err), "the API server's error stays inspectable")
}

func TestFailReadIsUnknownUnlessRefused(t *testing.T) {
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(failRead(apierrors.NewInternalError(errors.New("x")))))
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(failRead(&url.Error{Op: "Get", Err: io.EOF})))
	assert.Equal(t, stores.Rejected, stores.OutcomeOf(failRead(apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "n", errors.New("no")))))
}
