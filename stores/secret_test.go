package stores_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Every way of printing a Secret shows only whether it is set.
func TestSecretNeverPrints(t *testing.T) {
	s := stores.Secret("hunter2")
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "secret", s)
	dumped, err := json.Marshal(struct{ S stores.Secret }{s})
	require.NoError(t, err)
	for _, out := range []string{fmt.Sprintf("%v %+v %#v %s %q", s, s, s, s, s), logged.String(), string(dumped)} {
		assert.NotContains(t, out, "hunter2")
		assert.Contains(t, out, "[redacted]")
	}
	assert.Equal(t, "hunter2", s.Reveal())
	assert.Empty(t, stores.Secret("").String(), "unset shows as unset")
}
