package blobstate

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
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
			assertNoSecretInChain(t, err, name)
		})
	}
}

// Every request of the S3 driver that fails quotes its URL, the
// endpoint's user name in it: the errors of every operation, which reach
// activity results and workflow histories, show no credential either.
func TestOperationErrorsDoNotLeakSecrets(t *testing.T) {
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	setS3Env(t)
	require.NoError(t, backend.CreateBucket("bkt"))
	endpoint := strings.Replace(srv.URL, "http://", "http://AKIAKEYLEAK:SeCrEtLeAk@", 1)
	s := openURL(t, s3URL("bkt", endpoint))
	h := seedCheckpoint(t, s, "orders", 1, 1, 0)
	srv.Close() // every request fails from now on

	ctx := context.Background()
	_, writeErr := s.Write(ctx, h)
	_, readErr := s.ReadKey(ctx, h.Key())
	_, discardErr := s.Discard(ctx, h)
	_, listErr := s.ListHandles(ctx, "prod-eu")
	_, statErr := s.HandleModTime(ctx, h.Key())
	for name, err := range map[string]error{
		"write": writeErr, "read": readErr, "check data": s.CheckData(ctx, h),
		"discard": discardErr, "list": listErr, "stat": statErr, "probe": s.Probe(ctx),
	} {
		require.Error(t, err, name)
		assertNoSecretInChain(t, err, name)
	}
}

// assertNoSecretInChain checks every link of err's chain: the Temporal SDK
// records each one's message as a failure cause in the workflow history.
func assertNoSecretInChain(t *testing.T, err error, name string) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		assert.NotContains(t, e.Error(), "AKIAKEYLEAK", name)
		assert.NotContains(t, e.Error(), "SeCrEtLeAk", name)
	}
}

// Scrubbing hides the library's message, not its error: errors.Is and
// errors.As still find what the library returned.
func TestScrubbedErrorKeepsTheCause(t *testing.T) {
	u, err := url.Parse("s3://bkt?endpoint=https://AKIAKEYLEAK:SeCrEtLeAk@host")
	require.NoError(t, err)
	cause := &url.Error{Op: "Get", URL: "https://AKIAKEYLEAK:SeCrEtLeAk@host/x", Err: context.DeadlineExceeded}
	scrubbed := newScrubber(u, u.String()).scrub(fmt.Errorf("read: %w", cause))
	assertNoSecretInChain(t, fmt.Errorf("wrapped: %w", scrubbed), "scrubbed")
	assert.ErrorIs(t, scrubbed, context.DeadlineExceeded)
	var got *url.Error
	require.ErrorAs(t, scrubbed, &got)
	assert.Same(t, cause, got)
}
