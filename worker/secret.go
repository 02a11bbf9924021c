package worker

import "github.com/checkpoint-finalizer/finalizer/client"

// Secret is a credential that never prints (client.Secret).
type Secret = client.Secret
