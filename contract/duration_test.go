package contract_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

func TestDurationMarshalsAsAGoDurationString(t *testing.T) {
	b, err := json.Marshal(contract.NewReconcileRequest("c1"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"cluster":"c1","grace":"1h0m0s","tombstoneTtl":"24h0m0s"}`, string(b))

	b, err = json.Marshal(contract.Duration(90 * time.Second))
	require.NoError(t, err)
	assert.Equal(t, `"1m30s"`, string(b))
}

func TestDurationReadsStringsAndNanoseconds(t *testing.T) {
	for in, want := range map[string]time.Duration{
		`"10m"`:   10 * time.Minute,
		`"24h"`:   24 * time.Hour,
		`"1h30m"`: 90 * time.Minute,
		`"250ms"`: 250 * time.Millisecond,
		`"1.5h"`:  90 * time.Minute,
		`"0"`:     0,
		`"0s"`:    0,
		`"10m0s"`: 10 * time.Minute, // what MarshalJSON writes
		// The form earlier versions wrote: running executions, Schedules
		// created before and recorded histories carry it.
		`600000000000`: 10 * time.Minute,
		`0`:            0,
	} {
		var d contract.Duration
		require.NoError(t, json.Unmarshal([]byte(in), &d), in)
		assert.Equal(t, want, time.Duration(d), in)
	}
}

func TestDurationRefusesNegativeAndMalformed(t *testing.T) {
	for in, rule := range map[string]string{
		`"-10m"`:       "must not be negative",
		`"-0s"`:        "must not be negative",
		`-5`:           "must not be negative",
		`"10 minutes"`: "must be a duration",
		`"10"`:         "must be a duration",
		`""`:           "must be a duration",
		`1.5`:          "must be a duration string",
		`1e9`:          "must be a duration string",
		`true`:         "must be a duration string",
	} {
		var d contract.Duration
		err := json.Unmarshal([]byte(in), &d)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), rule, in)
	}
}

// A request's invalid duration is reported by Validate naming the field,
// so the run fails as Rejected.Invalid like any other invalid request.
func TestReconcileRequestNamesTheInvalidDuration(t *testing.T) {
	for in, field := range map[string]string{
		`{"cluster":"c1","grace":"-10m","tombstoneTtl":"24h"}`:    "grace",
		`{"cluster":"c1","grace":"10m","tombstoneTtl":"a day"}`:   "tombstoneTtl",
		`{"cluster":"c1","grace":-1,"tombstoneTtl":"24h"}`:        "grace",
		`{"cluster":"c1","grace":"10m","tombstoneTtl":"500ms"}`:   "tombstoneTtl",
		`{"cluster":"c1","grace":"10m"}`:                          "tombstoneTtl",
		`{"cluster":"c1","Grace":"-1h","tombstoneTtl":"24h"}`:     "grace", // keys match case-insensitively, as encoding/json's do
		`{"cluster":"c1","grace":"10m","tombstoneTtl":[1]}`:       "tombstoneTtl",
		`{"cluster":"c1","grace":{"m":10},"tombstoneTtl":"240h"}`: "grace",
	} {
		var req contract.ReconcileRequest
		require.NoError(t, json.Unmarshal([]byte(in), &req), in)
		err := req.Validate()
		var invalid *stores.InvalidError
		require.ErrorAs(t, err, &invalid, in)
		assert.Equal(t, field, invalid.Field, in)
	}
}

func TestReconcileRequestReadsBothForms(t *testing.T) {
	want := contract.NewReconcileRequest("c1")
	want.Apply = true
	for _, in := range []string{
		`{"cluster":"c1","apply":true,"grace":"1h","tombstoneTtl":"24h"}`,
		`{"cluster":"c1","apply":true,"grace":"1h0m0s","tombstoneTtl":"24h0m0s"}`,
		`{"cluster":"c1","apply":true,"grace":3600000000000,"tombstoneTtl":86400000000000}`,
		`{"cluster":"c1","apply":true,"grace":"60m","tombstoneTtl":86400000000000}`,
	} {
		var req contract.ReconcileRequest
		require.NoError(t, json.Unmarshal([]byte(in), &req), in)
		require.NoError(t, req.Validate(), in)
		assert.Equal(t, want, req, in)
	}

	// Absent or null: zero, as for any field; absent grace means no grace.
	var req contract.ReconcileRequest
	require.NoError(t, json.Unmarshal([]byte(`{"cluster":"c1","grace":null,"tombstoneTtl":"1s"}`), &req))
	assert.Equal(t, contract.ReconcileRequest{Cluster: "c1", TombstoneTTL: contract.Duration(time.Second)}, req)
	require.NoError(t, req.Validate())

	// A second decode into the same value clears an earlier decode's error.
	require.NoError(t, json.Unmarshal([]byte(`{"cluster":"c1","grace":"-1h","tombstoneTtl":"1s"}`), &req))
	require.Error(t, req.Validate())
	require.NoError(t, json.Unmarshal([]byte(`{"cluster":"c1","grace":"1h","tombstoneTtl":"1s"}`), &req))
	require.NoError(t, req.Validate())
}
