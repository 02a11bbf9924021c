package worker

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// A stale epoch's claim is a definite answer, not a fault: on a real dev
// server, the worker logs it once at WARN naming the reason, and the SDK's
// level=ERROR msg="Activity error." line does not appear.
func TestRoutineRejectionLoggedOnceAtWarn(t *testing.T) {
	d := newDevWorker(t)
	logs := &syncBuffer{}
	d.logs = logs
	d.start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	standing := contract.ClaimRequest{Cluster: "dev", Job: "job-1", Epoch: 2, Owner: "jm-2"}
	require.NoError(t, d.execute(ctx, standing.WorkflowID(), contract.ClaimWorkflow, standing).Get(ctx, nil))
	deposed := contract.ClaimRequest{Cluster: "dev", Job: "job-1", Epoch: 1, Owner: "jm-1"}
	err := d.execute(ctx, deposed.WorkflowID(), contract.ClaimWorkflow, deposed).Get(ctx, nil)
	rej := contract.Rejection(err)
	require.NotNil(t, rej, "the deposed claim is refused: %v", err)
	require.Equal(t, contract.TypeStaleEpoch, rej.Type())

	var warned []string
	for _, line := range strings.Split(logs.String(), "\n") {
		assert.False(t, strings.Contains(line, "level=ERROR") && strings.Contains(line, `msg="Activity error."`),
			"the SDK logged the rejection as an error: %s", line)
		if strings.Contains(line, "Rejected.StaleEpoch") && strings.Contains(line, "level=WARN") {
			warned = append(warned, line)
		}
	}
	assert.Len(t, warned, 1, "logged once at WARN:\n%s", logs)
}

// syncBuffer is a bytes.Buffer the worker's goroutines may log to while
// the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
