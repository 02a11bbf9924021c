package contracttest_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/contracttest"
	"github.com/checkpoint-finalizer/finalizer/workflows"
	"github.com/checkpoint-finalizer/finalizer/workflows/reconcile"
)

// contractTypes is the Go type each schema describes (a string for a bare
// string payload).
var contractTypes = map[string]any{
	"finalize-request.schema.json":   contract.FinalizeRequest{},
	"finalize-result.schema.json":    contract.FinalizeResult{},
	"status.schema.json":             contract.Status{},
	"claim-request.schema.json":      contract.ClaimRequest{},
	"latest-request.schema.json":     contract.LatestRequest{},
	"restore-point.schema.json":      contract.RestorePoint{},
	"retire-request.schema.json":     contract.RetireRequest{},
	"reconcile-request.schema.json":  contract.ReconcileRequest{},
	"reconcile-report.schema.json":   contract.ReconcileReport{},
	"coordinator-state.schema.json":  contract.CoordinatorState{},
	"coordinator-status.schema.json": contract.CoordinatorStatus{},
	"published-report.schema.json":   contract.PublishedReport{},
	"subsume-request.schema.json":    workflows.SubsumeRequest{},
	"subsume-result.schema.json":     workflows.SubsumeResult{},
	"abandon-signal.schema.json":     "",
	"subsume-status.schema.json":     "",
}

// registry records the names a worker registers (workflows.Register and
// reconcile.Register); they call nothing else of it.
type registry struct {
	sdkworker.WorkflowRegistry
	names []string
}

func (r *registry) RegisterWorkflowWithOptions(_ any, o workflow.RegisterOptions) {
	r.names = append(r.names, o.Name)
}

// workflows.json names exactly the workflows a worker registers, the
// contract's task queue, query and signals, and every schema file.
func TestContractIndexMatchesTheCode(t *testing.T) {
	c := contracttest.ContractOf(t)
	var registered registry
	workflows.Register(&registered)
	reconcile.Register(&registered)
	assert.ElementsMatch(t, registered.names, slices.Collect(maps.Keys(c.Workflows)))
	assert.Equal(t, contract.DefaultTaskQueue, c.TaskQueue)

	named := map[string]bool{}
	for name, w := range c.Workflows {
		named[w.Input] = true
		if w.Result != nil {
			named[*w.Result] = true
		}
		for q, schema := range w.Queries {
			assert.Equal(t, contract.StatusQuery, q, name)
			named[schema] = true
		}
		for _, schema := range w.Signals {
			if schema != nil {
				named[*schema] = true
			}
		}
	}
	assert.Equal(t, map[string]*string{contract.RetryNowSignal: nil, contract.AbandonSignal: ptr("abandon-signal.schema.json")},
		c.Workflows[contract.FinalizeWorkflow].Signals)
	assert.Equal(t, map[string]*string{contract.PublishedSignal: ptr("published-report.schema.json")},
		c.Workflows[contract.CoordinatorWorkflow].Signals)

	for _, name := range contracttest.Names(t) {
		if name == "common.schema.json" {
			continue
		}
		assert.True(t, named[name], "%s is named in workflows.json", name)
		assert.Contains(t, contractTypes, name, "%s has its Go type in contractTypes", name)
	}
	for name := range named {
		assert.Contains(t, contracttest.Names(t), name)
	}
}

func ptr(s string) *string { return &s }

// Schemas and Go types do not drift: every JSON member of each contract
// type is a property of its schema and every property a member, at every
// depth; a property the schema requires is one Go always writes; leaves
// have the JSON type Go writes.
func TestSchemasMatchTheGoTypes(t *testing.T) {
	docs := contracttest.Documents(t)
	for name, v := range contractTypes {
		t.Run(name, func(t *testing.T) {
			doc, ok := docs[name].(map[string]any)
			require.True(t, ok, "schema %s", name)
			drift{t: t, docs: docs}.check(name, name, doc, reflect.TypeOf(v))
		})
	}
}

type drift struct {
	t    *testing.T
	docs map[string]any
}

var (
	timeType  = reflect.TypeFor[time.Time]()
	marshaler = reflect.TypeFor[json.Marshaler]()
)

func (d drift) check(path, file string, node map[string]any, t reflect.Type) {
	file, node = d.resolve(path, file, node)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		d.leaf(path, node, "string")
	case t.Implements(marshaler):
		// Its own JSON form (contract.Duration): described by hand.
	case t.Kind() == reflect.Struct:
		d.object(path, file, node, t)
	case t.Kind() == reflect.Slice:
		d.leaf(path, node, "array")
		if items, ok := node["items"].(map[string]any); assert.True(d.t, ok, "%s: items", path) {
			d.check(path+"[]", file, items, t.Elem())
		}
	case t.Kind() == reflect.Map:
		d.leaf(path, node, "object")
		if values, ok := node["additionalProperties"].(map[string]any); assert.True(d.t, ok, "%s: additionalProperties", path) {
			d.check(path+"{}", file, values, t.Elem())
		}
	case t.Kind() == reflect.String:
		d.leaf(path, node, "string")
	case t.Kind() == reflect.Bool:
		d.leaf(path, node, "boolean")
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		d.leaf(path, node, "integer")
	default:
		d.t.Errorf("%s: no check for Go kind %s", path, t.Kind())
	}
}

func (d drift) object(path, file string, node map[string]any, t reflect.Type) {
	d.leaf(path, node, "object")
	props, _ := node["properties"].(map[string]any)
	fields := jsonFields(t)
	for name, f := range fields {
		prop, ok := props[name].(map[string]any)
		if !ok {
			d.t.Errorf("%s: Go writes %q, the schema has no such property", path, name)
			continue
		}
		d.check(path+"."+name, file, prop, f.typ)
	}
	for name := range props {
		if _, ok := fields[name]; !ok {
			d.t.Errorf("%s: the schema has %q, %s has no such JSON member", path, name, t)
		}
	}
	required, _ := node["required"].([]any)
	for _, r := range required {
		if f, ok := fields[r.(string)]; ok && f.omitempty {
			d.t.Errorf("%s: %q is required, but Go leaves it out when empty", path, r)
		}
	}
}

// leaf checks that the node admits the JSON type Go writes.
func (d drift) leaf(path string, node map[string]any, want string) {
	var types []string
	switch v := node["type"].(type) {
	case string:
		types = []string{v}
	case []any:
		for _, s := range v {
			types = append(types, s.(string))
		}
	case nil:
		enum, ok := node["enum"].([]any)
		if !ok {
			d.t.Errorf("%s: no type and no enum", path)
			return
		}
		for _, e := range enum {
			if _, ok := e.(string); !ok {
				d.t.Errorf("%s: enum value %v is no string", path, e)
			}
		}
		types = []string{"string"}
	}
	if !slices.Contains(types, want) {
		d.t.Errorf("%s: schema type %v, Go writes %s", path, types, want)
	}
}

// resolve follows $ref, within the file or into another.
func (d drift) resolve(path, file string, node map[string]any) (string, map[string]any) {
	for {
		ref, ok := node["$ref"].(string)
		if !ok {
			return file, node
		}
		target, pointer, _ := strings.Cut(ref, "#")
		if target != "" {
			file = target
		}
		var n any = d.docs[file]
		for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
			if tok != "" {
				m, _ := n.(map[string]any)
				n = m[tok]
			}
		}
		next, ok := n.(map[string]any)
		if !ok {
			d.t.Fatalf("%s: $ref %s does not resolve", path, ref)
		}
		node = next
	}
}

type jsonField struct {
	typ       reflect.Type
	omitempty bool
}

// jsonFields lists the members encoding/json writes for struct type t.
func jsonFields(t reflect.Type) map[string]jsonField {
	fields := map[string]jsonField{}
	var promoted []map[string]jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case tag == "-" || !f.IsExported() && !f.Anonymous:
			continue
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			promoted = append(promoted, jsonFields(f.Type))
			continue
		case name == "":
			name = f.Name
		}
		fields[name] = jsonField{typ: f.Type, omitempty: strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")}
	}
	for _, p := range promoted { // the outer struct's members win
		for name, f := range p {
			if _, ok := fields[name]; !ok {
				fields[name] = f
			}
		}
	}
	return fields
}
