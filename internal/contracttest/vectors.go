package contracttest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// Vector is one entry of testdata/contenthash-vectors.json: a valid
// FinalizeRequest, its canonical form and its content hash.
type Vector struct {
	Name        string          `json:"name"`
	Note        string          `json:"note"`
	Request     json.RawMessage `json:"request"`
	Canonical   string          `json:"canonical"`
	ContentHash string          `json:"contentHash"`
}

// ContentHashVectors reads the vectors callers in other languages test
// their contentHash against.
func ContentHashVectors(t testing.TB) []Vector {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "testdata", "contenthash-vectors.json"))
	if err != nil {
		t.Fatalf("content hash vectors: %v", err)
	}
	var file struct {
		Vectors []Vector `json:"vectors"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("content hash vectors: %v", err)
	}
	return file.Vectors
}

// FinalizeRequest decodes the vector's request strictly: a misspelt member
// in the file would otherwise be dropped and hash as absent.
func (v Vector) FinalizeRequest(t testing.TB) contract.FinalizeRequest {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(v.Request))
	dec.DisallowUnknownFields()
	var req contract.FinalizeRequest
	if err := dec.Decode(&req); err != nil {
		t.Fatalf("vector %s: %v", v.Name, err)
	}
	return req
}
