package client_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a job manager links by importing client: the Temporal SDK and the
// contract, never the object stores' cloud SDKs (they register in the
// worker's process through stores/blobstate/cloud).
func TestClientLinksNoCloudSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/checkpoint-finalizer/finalizer/client").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	t.Logf("client links %d packages", len(deps))
	for _, d := range deps {
		for _, heavy := range []string{"github.com/aws/", "github.com/Azure/", "cloud.google.com/go/storage", "gocloud.dev/blob/s3blob", "gocloud.dev/blob/gcsblob", "gocloud.dev/blob/azureblob"} {
			assert.False(t, strings.HasPrefix(d, heavy), "client links %s", d)
		}
	}
}
