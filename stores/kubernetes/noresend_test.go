package kubernetes_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

// A real API server cannot be made to answer 503/504 with Retry-After on
// demand, so this test stands a minimal HTTP endpoint in front of the
// client (not client-go's fake clientset, which never sends a request):
// it answers GET with a claimed job's ConfigMap and every PUT with status.
// client-go would resend such a PUT up to 10 times by itself; the store must
// send it exactly once and report Unknown.
func TestNoHiddenResend(t *testing.T) {
	cases := []struct {
		name       string
		code       int
		retryAfter string
		attempts   int
		wantPUTs   int64
	}{
		{"503 with Retry-After", http.StatusServiceUnavailable, "1", 3, 1},
		{"504 with Retry-After", http.StatusGatewayTimeout, "1", 3, 1},
		{"500", http.StatusInternalServerError, "", 3, 1},
		// 429 was not applied: the store reads again and decides again, once
		// per pass, and runs out as Unknown, never Rejected.
		{"429 with Retry-After", http.StatusTooManyRequests, "1", 3, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var puts, gets atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				switch r.Method {
				case http.MethodGet:
					gets.Add(1)
					_ = json.NewEncoder(w).Encode(claimedConfigMap(t))
				case http.MethodPut:
					puts.Add(1)
					if c.retryAfter != "" {
						w.Header().Set("Retry-After", c.retryAfter)
					}
					w.WriteHeader(c.code)
					_ = json.NewEncoder(w).Encode(metav1.Status{
						TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
						Status:   metav1.StatusFailure, Code: int32(c.code), Message: "injected",
					})
				default:
					w.WriteHeader(http.StatusMethodNotAllowed)
				}
			}))
			defer srv.Close()
			s := open(t, &rest.Config{Host: srv.URL}, "ns", func(c2 *kubernetes.Config) { c2.MaxAttempts = c.attempts })

			begin := time.Now()
			err := s.Publish(ctxT(t), pub(1, 1, "tok", 1))
			require.Error(t, err)
			assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "%v", err)
			assert.Equal(t, c.wantPUTs, puts.Load(), "PUTs sent")
			assert.Equal(t, c.wantPUTs, gets.Load(), "each pass reads first")
			if c.code == http.StatusTooManyRequests {
				assert.GreaterOrEqual(t, time.Since(begin), time.Duration(c.attempts-1)*time.Second, "Retry-After honoured")
			}
		})
	}
}

func claimedConfigMap(t *testing.T) *corev1.ConfigMap {
	name, err := kubernetes.ConfigMapName(job)
	require.NoError(t, err)
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ns", ResourceVersion: "5",
			Labels: map[string]string{
				kubernetes.LabelManagedBy: kubernetes.ManagedBy,
				kubernetes.LabelCluster:   job.Cluster,
				kubernetes.LabelJob:       job.Job,
			},
			// The whole job state, as the store writes it: epoch 1 claimed.
			Annotations: map[string]string{
				kubernetes.AnnotationStateVersion: "2", kubernetes.AnnotationEpoch: "1", kubernetes.AnnotationOwner: "jm",
				kubernetes.AnnotationWatermark: "0", kubernetes.AnnotationRetired: "false", kubernetes.AnnotationForgottenEpoch: "0",
			},
		},
	}
}
