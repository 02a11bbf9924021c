// Package contracttest checks payloads against the workflow contract's JSON
// Schemas (schemas/): inputs, results, query answers and signal payloads,
// one at a time or every one a workflow history holds.
package contracttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/checkpoint-finalizer/finalizer/schemas"
)

// BaseURI is the prefix of every schema's $id; a file's $id is BaseURI and
// its name.
const BaseURI = "https://github.com/checkpoint-finalizer/finalizer/schemas/"

// Contract is schemas/workflows.json: which schema describes which payload.
type Contract struct {
	TaskQueue string              `json:"taskQueue"`
	Workflows map[string]Workflow `json:"workflows"`
}

// Workflow is one workflow type's entry; schemas are file names.
type Workflow struct {
	WorkflowID string `json:"workflowId"`
	Input      string `json:"input"`
	// Result is nil for a workflow that returns nothing.
	Result *string `json:"result"`
	// ResultOptional says why a run may complete with no result (one
	// started by an earlier version).
	ResultOptional string            `json:"resultOptional"`
	Queries        map[string]string `json:"queries"`
	// Signals maps a signal to its payload's schema, nil for none.
	Signals map[string]*string `json:"signals"`
}

type set struct {
	contract Contract
	compiled map[string]*jsonschema.Schema
	docs     map[string]any
}

var load = sync.OnceValues(func() (*set, error) {
	s := &set{compiled: map[string]*jsonschema.Schema{}, docs: map[string]any{}}
	b, err := fs.ReadFile(schemas.FS, "workflows.json")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &s.contract); err != nil {
		return nil, fmt.Errorf("workflows.json: %w", err)
	}
	names, err := fs.Glob(schemas.FS, "*.schema.json")
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat() // date-time is a rule of the contract, not a hint
	for _, name := range names {
		b, err := fs.ReadFile(schemas.FS, name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if id, _ := doc.(map[string]any)["$id"].(string); id != BaseURI+name {
			return nil, fmt.Errorf("%s: $id %q, want %q", name, id, BaseURI+name)
		}
		if err := c.AddResource(BaseURI+name, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		s.docs[name] = doc
	}
	for _, name := range names {
		sch, err := c.Compile(BaseURI + name)
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", name, err)
		}
		s.compiled[name] = sch
	}
	return s, nil
})

func mustLoad(t testing.TB) *set {
	t.Helper()
	s, err := load()
	if err != nil {
		t.Fatalf("contract schemas: %v", err)
	}
	return s
}

// ContractOf is workflows.json.
func ContractOf(t testing.TB) Contract {
	t.Helper()
	return mustLoad(t).contract
}

// Documents are the schema files as parsed JSON (numbers as json.Number),
// by file name.
func Documents(t testing.TB) map[string]any {
	t.Helper()
	return mustLoad(t).docs
}

// Check validates one JSON payload against the named schema file.
func Check(schema string, payload []byte) error {
	s, err := load()
	if err != nil {
		return err
	}
	sch, ok := s.compiled[schema]
	if !ok {
		return fmt.Errorf("no schema %s", schema)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("%s: payload is no JSON: %w", schema, err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s: %s: %w", schema, payload, err)
	}
	return nil
}

// Validate fails the test unless payload is valid against schema.
func Validate(t testing.TB, schema string, payload []byte) {
	t.Helper()
	if err := Check(schema, payload); err != nil {
		t.Errorf("contract: %v", err)
	}
}

// ValidateValue marshals v as the SDKs' JSON converter does and validates it.
func ValidateValue(t testing.TB, schema string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("contract: marshal %T: %v", v, err)
	}
	Validate(t, schema, b)
}

// Names are the schema files, sorted.
func Names(t testing.TB) []string {
	t.Helper()
	return slices.Sorted(maps.Keys(mustLoad(t).docs))
}

// DecodeChecked reads a workflow's answer (through get: a result's or a
// query's Get) as the JSON the SDK carried, validates it against schema,
// then decodes it into v. The workflow tests' fixtures read every answer
// through it, so every workflow test checks the answers it sees against
// the contract.
func DecodeChecked(t testing.TB, schema string, get func(any) error, v any) {
	t.Helper()
	var raw json.RawMessage
	if err := get(&raw); err != nil {
		t.Fatalf("contract: read the answer for %s: %v", schema, err)
	}
	Validate(t, schema, raw)
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("contract: decode %s into %T: %v", schema, v, err)
	}
}
