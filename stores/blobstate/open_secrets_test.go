package blobstate

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The bucket libraries print the URL they were given whole, query and user
// info included, in their own errors: Open's error must not, whichever way
// the URL carries its credentials.
func TestOpenDriverErrorsDoNotLeakSecrets(t *testing.T) {
	dir := filepath.ToSlash(t.TempDir())
	for name, u := range map[string]string{
		"s3 endpoint user info, misspelt option": "s3://bkt?endpoint=https://AKIAKEYLEAK:SeCrEtLeAk@127.0.0.1:1&regionn=x",
		"s3 user info":                           "s3://AKIAKEYLEAK:SeCrEtLeAk@bkt?regionn=x",
		"file query":                             "file://" + dir + "?create_dirr=true&sig=SeCrEtLeAk",
		"file user info":                         "file://AKIAKEYLEAK:SeCrEtLeAk@" + dir + "?bogus=1",
		"azblob sas token":                       "azblob://bkt?sas_token=SeCrEtLeAk&protocoll=x",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Open(context.Background(), u)
			require.Error(t, err)
			t.Log(err)
			assert.NotContains(t, err.Error(), "AKIAKEYLEAK")
			assert.NotContains(t, err.Error(), "SeCrEtLeAk")
		})
	}
}
