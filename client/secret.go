package client

import (
	"fmt"
	"os"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Secret is a credential that never prints: only whether it is set shows,
// whatever prints it (fmt verbs, slog, JSON); Reveal reads it. It is the
// stores' type, so that a store's configuration holds one too.
type Secret = stores.Secret

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
