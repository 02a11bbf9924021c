package main

import (
	"fmt"
	"strings"
)

// format is how a command prints its result, and its error once
// --output asks for a machine-readable one: -o/--output, as kubectl and
// the Temporal CLI spell it.
type format string

const (
	formatText format = "text"
	// formatWide is the text with every column a table has (list, the
	// batch report of retry-now and abandon); elsewhere the text itself.
	formatWide format = "wide"
	formatJSON format = "json"
	formatYAML format = "yaml"
)

var formats = []format{formatText, formatWide, formatJSON, formatYAML}

// parseFormat reads an --output value; "" is the default, text.
func parseFormat(s string) (format, error) {
	if s == "" {
		return formatText, nil
	}
	for _, f := range formats {
		if format(s) == f {
			return f, nil
		}
	}
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return "", usagef("--output must be one of %s, got %q", strings.Join(names, ", "), s)
}

// structured is true for the formats a script parses: results and errors
// are objects in them.
func (f format) structured() bool { return f == formatJSON || f == formatYAML }

func (f format) String() string { return fmt.Sprint(string(f)) }
