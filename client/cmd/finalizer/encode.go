package main

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// encode writes v in a structured format f, or text (and a newline) in
// the others. YAML goes through v's JSON form (sigs.k8s.io/yaml), so both
// formats have the same keys and values: one set of struct tags.
func encode(w io.Writer, f format, v any, text string) error {
	switch f {
	case formatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case formatYAML:
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	default:
		_, err := fmt.Fprintln(w, text)
		return err
	}
}
