package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
)

// secretMarks are the credentials TestStartFailureNeverPrintsSecrets puts
// wherever a user can; none may appear in anything the worker prints.
var secretMarks = []string{"AKIAKEYLEAK", "SeCrEtLeAk", "ApIkEyLeAk", "ApIkEyFiLeLeAk", "ZkPaSsLeAk", "SaSlEaK"}

// The worker is started with a credential in every place a user can put
// one (the bucket URL's user info and query, an S3 endpoint's user info,
// the Temporal API key by variable and by file, the ZooKeeper password)
// and a mistake that ends its start: the bucket library refusing a
// misspelt option, or Temporal not answering. Its "worker starting" and
// "worker failed" lines, and everything else it prints, show none of them.
func TestStartFailureNeverPrintsSecrets(t *testing.T) {
	dir := t.TempDir()
	bucketDir := filepath.ToSlash(filepath.Join(dir, "bucket"))
	require.NoError(t, os.MkdirAll(bucketDir, 0o755))
	keyFile := filepath.Join(dir, "api-key")
	require.NoError(t, os.WriteFile(keyFile, []byte("ApIkEyFiLeLeAk\n"), 0o600))
	env := map[string]string{
		"FINALIZER_TEMPORAL_API_KEY":          "ApIkEyLeAk",
		"TEMPORAL_API_KEY":                    "ApIkEyLeAk",
		"FINALIZER_ZOOKEEPER_DIGEST_PASSWORD": "ZkPaSsLeAk",
	}
	// Nothing listens there: a start that gets past the bucket fails at
	// its dial.
	deadTemporal := "--temporal-address=" + workerproc.FreeAddr(t)
	common := []string{deadTemporal, "--embedded-path=" + filepath.Join(dir, "refs.db"), "--metrics-address=off", "--log-level=debug"}
	for name, bucket := range map[string]string{
		"s3 endpoint user info, misspelt option": "s3://bkt?endpoint=https://AKIAKEYLEAK:SeCrEtLeAk@127.0.0.1:1&regionn=x",
		"s3 user info, misspelt option":          "s3://AKIAKEYLEAK:SeCrEtLeAk@bkt?regionn=x",
		"azblob sas token, misspelt option":      "azblob://bkt?sas_token=SaSlEaK&protocoll=x",
		"file query, misspelt option":            "file://" + bucketDir + "?create_dirr=true&sig=SeCrEtLeAk",
		"file user info, misspelt option":        "file://AKIAKEYLEAK:SeCrEtLeAk@" + bucketDir + "?bogus=1",
	} {
		t.Run(name, func(t *testing.T) {
			o := runWorker(t, env, append(common, "--state-bucket="+bucket)...)
			assert.Equal(t, 1, o.code)
			assert.Contains(t, o.stderr, "worker failed")
			assertNoSecret(t, o)
		})
	}
	// With the bucket right, the start gets to its dial, with the API key
	// from the variable or from its file.
	noKey := map[string]string{"FINALIZER_ZOOKEEPER_DIGEST_PASSWORD": "ZkPaSsLeAk"}
	for name, run := range map[string]struct {
		env  map[string]string
		args []string
	}{
		"temporal not answering, api key variable": {env, nil},
		"temporal not answering, api key file":     {noKey, []string{"--temporal-api-key-file=" + keyFile}},
	} {
		t.Run(name, func(t *testing.T) {
			o := runWorker(t, run.env, append(append(common, "--state-bucket=file://"+bucketDir), run.args...)...)
			assert.Equal(t, 1, o.code)
			assert.Contains(t, o.stderr, "worker failed")
			assertNoSecret(t, o)
		})
	}
}

func assertNoSecret(t *testing.T, o outcome) {
	t.Helper()
	for _, s := range secretMarks {
		assert.NotContains(t, o.stdout, s)
		assert.NotContains(t, o.stderr, s)
	}
}
