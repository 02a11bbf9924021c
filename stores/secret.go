package stores

import (
	"fmt"
	"log/slog"
)

// Secret is a credential a configuration holds (a ZooKeeper digest
// password, a Temporal API key). Every way of printing it (fmt verbs, slog,
// JSON) shows only whether it is set, so a configuration holding one can be
// logged or dumped in an error whole; Reveal is the one way to read it.
type Secret string

const redacted = "[redacted]"

// Reveal returns the secret itself, for the code that sends it.
func (s Secret) Reveal() string { return string(s) }

// String hides the value; %v, %s and %q go through it.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString hides the value from %#v.
func (s Secret) GoString() string { return fmt.Sprintf("stores.Secret(%q)", s.String()) }

// LogValue hides the value from slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalText hides the value from encoding/json and friends.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
