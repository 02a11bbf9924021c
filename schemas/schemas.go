// Package schemas holds the JSON Schemas (draft 2020-12) of the workflow
// contract, one file per workflow input, result, query answer and signal
// payload, and workflows.json, which says which payload each describes.
// They are written for callers in any language; Go embeds them only for
// the tests that check real payloads against them
// (internal/testenv/fixtures/contracttest).
package schemas

import "embed"

// FS holds every schema file and workflows.json.
//
//go:embed *.schema.json workflows.json
var FS embed.FS
