package blobstate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The stored format is a contract with every handle already written: a
// change here must be a new envelope version.
func TestEnvelopeFormatIsStable(t *testing.T) {
	h := validHandle()
	h.MetadataSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	b, err := EncodeEnvelope(h)
	require.NoError(t, err)
	const want = `{"v":1,"handle":{"cluster":"prod-eu","job":"orders","checkpoint":42,"epoch":3,` +
		`"metadataKey":"flink/orders/chk-42/_metadata",` +
		`"metadataSha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",` +
		`"exclusivePrefix":"flink/orders/chk-42/"},` +
		`"sha256":"` + "%s" + `"}`
	var env envelope
	require.NoError(t, strictUnmarshal(b, &env))
	assert.Equal(t, sha(env.Handle), env.SHA256, "the checksum covers the handle's bytes")
	assert.Equal(t, []byte(fmt.Sprintf(want, env.SHA256)), b)

	got, err := DecodeEnvelope(b)
	require.NoError(t, err)
	assert.Equal(t, h, got)
}

func TestDecodeEnvelopeRefusesNonCanonicalOrForeignBytes(t *testing.T) {
	h := validHandle()
	good, err := EncodeEnvelope(h)
	require.NoError(t, err)
	body, err := json.Marshal(h)
	require.NoError(t, err)

	for name, b := range map[string][]byte{
		"trailing newline": append(append([]byte(nil), good...), '\n'),
		"leading space":    append([]byte(" "), good...),
		"unknown field":    []byte(`{"v":1,"x":0,"handle":` + string(body) + `,"sha256":"` + sha(body) + `"}`),
		"version 2":        []byte(`{"v":2,"handle":` + string(body) + `,"sha256":"` + sha(body) + `"}`),
		"uppercase sum":    []byte(`{"v":1,"handle":` + string(body) + `,"sha256":"` + strings.ToUpper(sha(body)) + `"}`),
		"reordered fields": []byte(`{"handle":` + string(body) + `,"v":1,"sha256":"` + sha(body) + `"}`),
		"two values":       append(append([]byte(nil), good...), good...),
		"null":             []byte("null"),
		"invalid handle with a valid checksum": func() []byte {
			bad := []byte(`{"cluster":"prod-eu","job":"orders","checkpoint":42,"epoch":3,"metadataKey":"flink/orders/_metadata","metadataSha256":"` + h.MetadataSHA256 + `","exclusivePrefix":"flink/orders/"}`)
			return []byte(`{"v":1,"handle":` + string(bad) + `,"sha256":"` + sha(bad) + `"}`)
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeEnvelope(b)
			require.ErrorIs(t, err, ErrCorrupt)
		})
	}
}
