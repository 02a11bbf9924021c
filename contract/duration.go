package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Duration is a time.Duration in a request, written in JSON as a Go
// duration string ("10m0s") and read from one ("10m", "24h", "1h30m"), so
// that a caller in another language never counts nanoseconds. A JSON
// integer is still read as nanoseconds, the form earlier versions wrote:
// executions already running, Temporal Schedules created before and the
// recorded histories carry it. Negative durations are refused either way.
//
// A worker reads both forms; a worker of an earlier version reads only
// integers, so upgrade the workers before the clients that send strings.
type Duration time.Duration

// String is the Go duration string ("1h0m0s").
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes the Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.String())
}

// UnmarshalJSON reads a duration string or an integer of nanoseconds;
// null leaves d as it is, as encoding/json does for other types.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	v, err := parseDurationJSON(b)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// parseDurationJSON reads one JSON value as a Duration; its errors state
// the rule, the caller names the field.
func parseDurationJSON(b []byte) (Duration, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, err
		}
		return ParseDuration(s)
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s: must be a duration string such as \"10m\" or \"24h\" (or an integer of nanoseconds)", b)
	case n < 0:
		return 0, fmt.Errorf("%d: must not be negative", n)
	}
	return Duration(n), nil
}

// ParseDuration reads a duration as time.ParseDuration does ("10m",
// "1h30m", "250ms"), refusing negative ones.
func ParseDuration(s string) (Duration, error) {
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Errorf("%q: must not be negative", s)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q: must be a duration such as \"10m\", \"24h\" or \"1h30m\" (units ns, us, ms, s, m, h)", s)
	}
	return Duration(v), nil
}

// decodeDuration reads the raw JSON value of the request field name into
// d, naming the field in its error; absent or null leaves d as it is.
func decodeDuration(name string, raw json.RawMessage, d *Duration) error {
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	v, err := parseDurationJSON(raw)
	if err != nil {
		return &stores.InvalidError{Field: name, Rule: err.Error()}
	}
	*d = v
	return nil
}
