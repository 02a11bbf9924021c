package zookeeper_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// A Config can be logged, formatted or dumped whole: the digest password
// only shows as set.
func TestConfigNeverPrintsThePassword(t *testing.T) {
	cfg := zookeeper.Config{Servers: []string{"zk:2181"}, Root: "/r", SessionTimeout: time.Minute,
		DigestUser: "finalizer", DigestPassword: "zk-secret"}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "config", cfg, "password", cfg.DigestPassword)
	dumped, err := json.Marshal(cfg)
	require.NoError(t, err)
	printed := fmt.Sprintf("%v %+v %#v %s %q", cfg, cfg, cfg, cfg.DigestPassword, cfg.DigestPassword)
	for _, out := range []string{logged.String(), string(dumped), printed} {
		assert.NotContains(t, out, "zk-secret")
		assert.Contains(t, out, "[redacted]")
	}
	assert.Equal(t, "zk-secret", cfg.DigestPassword.Reveal())
}

// Validate reports every broken rule at once, each naming its field.
func TestConfigValidateReportsEveryProblem(t *testing.T) {
	err := zookeeper.Config{Servers: []string{"zk"}, Root: "flink", DigestUser: "a:b"}.Validate()
	require.ErrorIs(t, err, stores.ErrInvalid)
	var fields []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		inv, ok := errors.AsType[*stores.InvalidError](e)
		require.True(t, ok, "%T", e)
		fields = append(fields, inv.Field)
	}
	assert.Equal(t, []string{"servers", "root", "session timeout", "digest", "digest user"}, fields)
}
