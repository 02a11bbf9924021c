package worker

import "github.com/checkpoint-finalizer/finalizer/client"

// Secret is a credential that never prints (client.Secret).
type Secret = client.Secret

// readSecret returns inline, or the content of file when inline is empty.
func readSecret(inline Secret, file string) (Secret, error) {
	if inline != "" || file == "" {
		return inline, nil
	}
	return client.ReadSecretFile(file)
}
