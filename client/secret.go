package client

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
)

// Secret is a credential. Every way of printing it (fmt verbs, slog, JSON)
// shows only whether it is set, so a configuration holding one can be
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
func (s Secret) GoString() string { return fmt.Sprintf("client.Secret(%q)", s.String()) }

// LogValue hides the value from slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalText hides the value from encoding/json and friends.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ReadSecretFile reads a secret from file. Trailing newlines are dropped:
// secret files are usually written by echo or mounted from a Kubernetes
// Secret that kept one.
func ReadSecretFile(file string) (Secret, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", fmt.Errorf("%s is empty", file)
	}
	return Secret(s), nil
}
