package contracttest_test

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/contracttest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// A rule only one side can state: the schema cannot compare two fields
// or compute a byte length; the worker ignores members it does not know,
// which the request schemas refuse so that a misspelt one is caught.
const (
	both       = iota // both accept or both refuse, as the case's ok says
	goOnly            // the worker refuses, the schema cannot tell
	schemaOnly        // the schema refuses, the worker ignores it
)

type validationCase struct {
	name   string
	change map[string]any // nil value: the member is removed
	ok     bool
	side   int
}

// The request schemas refuse what the worker's validation refuses.
func TestSchemasAgreeWithValidation(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	checkAgreement(t, "finalize-request.schema.json",
		map[string]any{
			"cluster": "prod-eu", "job": "0a1b", "epoch": 3, "owner": "jm-7f3a", "checkpoint": 42,
			"metadataKey": "flink/prod-eu/0a1b/chk-42/_metadata", "metadataSha256": sha,
			"exclusivePrefix": "flink/prod-eu/0a1b/chk-42/",
		},
		decoded(func(r contract.FinalizeRequest) error { return r.Validate() }),
		[]validationCase{
			{name: "valid", ok: true},
			{name: "max attempts", change: map[string]any{"maxPublishAttempts": 7}, ok: true},
			{name: "top-level checkpoint directory", change: map[string]any{"exclusivePrefix": "chk-42/", "metadataKey": "chk-42/_metadata"}, ok: true},
			{name: "epoch 2^64-1", change: map[string]any{"epoch": json.Number("18446744073709551615")}, ok: true},
			{name: "savepoint without prefix", change: map[string]any{"savepoint": true, "exclusivePrefix": nil, "metadataKey": "savepoints/sp-1/_metadata"}, ok: true},
			{name: "savepoint in any directory", change: map[string]any{"savepoint": true, "exclusivePrefix": "savepoints/sp-1/", "metadataKey": "savepoints/sp-1/_metadata"}, ok: true},
			{name: "cluster uppercase", change: map[string]any{"cluster": "Prod-EU"}},
			{name: "cluster empty", change: map[string]any{"cluster": ""}},
			{name: "cluster missing", change: map[string]any{"cluster": nil}},
			{name: "cluster 64 characters", change: map[string]any{"cluster": strings.Repeat("a", 64)}},
			{name: "cluster 63 characters", change: map[string]any{"cluster": strings.Repeat("a", 63)}, ok: true},
			{name: "cluster leading dash", change: map[string]any{"cluster": "-eu"}},
			{name: "job underscore", change: map[string]any{"job": "job_1"}},
			{name: "epoch 0", change: map[string]any{"epoch": 0}},
			{name: "epoch missing", change: map[string]any{"epoch": nil}},
			{name: "epoch above 2^64-1", change: map[string]any{"epoch": json.Number("18446744073709551616")}},
			{name: "checkpoint 0", change: map[string]any{"checkpoint": 0}},
			{name: "checkpoint negative", change: map[string]any{"checkpoint": -1}},
			{name: "key absolute", change: map[string]any{"metadataKey": "/flink/chk-42/_metadata"}},
			{name: "key empty segment", change: map[string]any{"metadataKey": "flink/prod-eu/0a1b/chk-42//_metadata"}},
			{name: "key dot-dot", change: map[string]any{"metadataKey": "flink/prod-eu/0a1b/chk-42/../chk-42/_metadata"}},
			{name: "key space", change: map[string]any{"metadataKey": "flink/prod-eu/0a1b/chk-42/meta data"}},
			{name: "key under handles/", change: map[string]any{"savepoint": true, "exclusivePrefix": nil, "metadataKey": "handles/x"}},
			{name: "key .attrs", change: map[string]any{"metadataKey": "flink/prod-eu/0a1b/chk-42/_metadata.attrs"}},
			{name: "key 1025 bytes", change: map[string]any{"savepoint": true, "exclusivePrefix": nil, "metadataKey": strings.Repeat("k", 1025)}},
			{name: "sha uppercase", change: map[string]any{"metadataSha256": strings.ToUpper(sha)}},
			{name: "sha short", change: map[string]any{"metadataSha256": sha[1:]}},
			{name: "checkpoint without prefix", change: map[string]any{"exclusivePrefix": nil}},
			{name: "prefix without slash", change: map[string]any{"exclusivePrefix": "flink/prod-eu/0a1b/chk-42"}},
			{name: "prefix of the job", change: map[string]any{"exclusivePrefix": "flink/prod-eu/0a1b/", "metadataKey": "flink/prod-eu/0a1b/_metadata"}},
			{name: "prefix of a nested checkpoint name", change: map[string]any{"exclusivePrefix": "flink/prod-eu/0a1b/xchk-42/", "metadataKey": "flink/prod-eu/0a1b/xchk-42/_metadata"}},
			{name: "prefix of another checkpoint", change: map[string]any{"exclusivePrefix": "flink/prod-eu/0a1b/chk-41/", "metadataKey": "flink/prod-eu/0a1b/chk-41/_metadata"}, side: goOnly},
			{name: "metadata outside the prefix", change: map[string]any{"metadataKey": "flink/prod-eu/0a1b/_metadata"}, side: goOnly},
			{name: "misspelt member", change: map[string]any{"savepiont": true}, side: schemaOnly},
			{name: "maxPublishAttempts negative", change: map[string]any{"maxPublishAttempts": -1}},
			{name: "owner missing", change: map[string]any{"owner": nil}},
			{name: "owner empty", change: map[string]any{"owner": ""}},
			{name: "owner control character", change: map[string]any{"owner": "jm\n1"}},
		})

	checkAgreement(t, "claim-request.schema.json",
		map[string]any{"cluster": "prod-eu", "job": "0a1b", "epoch": 3, "owner": "jm-7f3a"},
		decoded(func(r contract.ClaimRequest) error {
			return stores.ValidateClaim(stores.JobID{Cluster: r.Cluster, Job: r.Job}, r.Epoch, r.Owner)
		}),
		[]validationCase{
			{name: "valid", ok: true},
			{name: "owner any printable text", change: map[string]any{"owner": "leader session 7f3a/é"}, ok: true},
			{name: "owner empty", change: map[string]any{"owner": ""}},
			{name: "owner control character", change: map[string]any{"owner": "jm\n1"}},
			{name: "owner 257 bytes", change: map[string]any{"owner": strings.Repeat("o", 257)}},
			{name: "owner 256 characters of 2 bytes", change: map[string]any{"owner": strings.Repeat("é", 256)}, side: goOnly},
			{name: "epoch 0", change: map[string]any{"epoch": 0}},
			{name: "job uppercase", change: map[string]any{"job": "J1"}},
		})

	checkAgreement(t, "retire-request.schema.json",
		map[string]any{"cluster": "prod-eu", "job": "0a1b", "epoch": 3, "owner": "jm-7f3a"},
		decoded(func(r contract.RetireRequest) error { return r.Validate() }),
		[]validationCase{
			{name: "valid", ok: true},
			{name: "owner missing", change: map[string]any{"owner": nil}},
			{name: "discard", change: map[string]any{"discardCheckpoints": true}, ok: true},
			{name: "epoch 0", change: map[string]any{"epoch": 0}},
			{name: "cluster dot", change: map[string]any{"cluster": "prod.eu"}},
		})

	checkAgreement(t, "latest-request.schema.json",
		map[string]any{"cluster": "prod-eu", "job": "0a1b"},
		decoded(func(r contract.LatestRequest) error { return r.JobID().Validate() }),
		[]validationCase{
			{name: "valid", ok: true},
			{name: "job missing", change: map[string]any{"job": nil}},
		})

	checkAgreement(t, "reconcile-request.schema.json",
		map[string]any{"cluster": "prod-eu", "grace": "10m", "tombstoneTtl": "24h"},
		decoded(func(r contract.ReconcileRequest) error { return r.Validate() }),
		[]validationCase{
			{name: "valid", ok: true},
			{name: "applied", change: map[string]any{"apply": true, "quarantineDangling": true, "reportLimit": 10}, ok: true},
			{name: "compound durations", change: map[string]any{"grace": "1h30m", "tombstoneTtl": "1.5h"}, ok: true},
			{name: "Go's own form", change: map[string]any{"grace": "10m0s", "tombstoneTtl": "24h0m0s"}, ok: true},
			{name: "no grace", change: map[string]any{"grace": nil}, ok: true},
			{name: "grace 0", change: map[string]any{"grace": "0"}, ok: true},
			{name: "nanoseconds, as earlier versions wrote", change: map[string]any{"grace": 600000000000, "tombstoneTtl": 86400000000000}, ok: true},
			{name: "grace negative", change: map[string]any{"grace": "-10m"}},
			{name: "grace negative nanoseconds", change: map[string]any{"grace": -1}},
			{name: "grace without unit", change: map[string]any{"grace": "10"}},
			{name: "grace in words", change: map[string]any{"grace": "10 minutes"}},
			{name: "grace fractional nanoseconds", change: map[string]any{"grace": 1.5}},
			{name: "grace days", change: map[string]any{"grace": "1d"}},
			{name: "tombstone TTL missing", change: map[string]any{"tombstoneTtl": nil}},
			{name: "tombstone TTL below 1s", change: map[string]any{"tombstoneTtl": "500ms"}, side: goOnly},
			{name: "report limit negative", change: map[string]any{"reportLimit": -1}},
			{name: "cluster invalid", change: map[string]any{"cluster": "prod_eu"}},
			{name: "misspelt member", change: map[string]any{"tombstoneTTL": "1h"}, side: schemaOnly},
		})
}

// decoded is validate applied to the request a payload decodes to, as the
// worker reads it.
func decoded[T any](validate func(T) error) func([]byte) error {
	return func(b []byte) error {
		var r T
		if err := json.Unmarshal(b, &r); err != nil {
			return err
		}
		return validate(r)
	}
}

func checkAgreement(t *testing.T, schema string, base map[string]any, validate func([]byte) error, cases []validationCase) {
	t.Run(strings.TrimSuffix(schema, ".schema.json"), func(t *testing.T) {
		for _, c := range cases {
			v := maps.Clone(base)
			for k, x := range c.change {
				if x == nil {
					delete(v, k)
				} else {
					v[k] = x
				}
			}
			b, err := json.Marshal(v)
			require.NoError(t, err)
			schemaErr, goErr := contracttest.Check(schema, b), validate(b)
			switch c.side {
			case both:
				assert.Equal(t, c.ok, schemaErr == nil, "%s: schema: %v", c.name, schemaErr)
				assert.Equal(t, c.ok, goErr == nil, "%s: Go: %v", c.name, goErr)
			case goOnly:
				assert.NoError(t, schemaErr, "%s: not expressible in the schema", c.name)
				assert.Error(t, goErr, "%s: the worker refuses it", c.name)
			case schemaOnly:
				assert.Error(t, schemaErr, "%s: the schema refuses it", c.name)
				assert.NoError(t, goErr, "%s: the worker ignores it", c.name)
			}
		}
	})
}
