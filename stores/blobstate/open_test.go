package blobstate

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

func TestOpenRefusesBadURLsBeforeConnecting(t *testing.T) {
	for _, u := range []string{
		"",
		"bucket",
		"/var/lib/state",
		"http://example.com/bucket",
		"ftp://host/dir",
		"gcs://bucket",
		"s3://",
		"gs:///path",
		"azblob://",
		"file://",
		"file:///",
		"file:///tmp/x?metadata=sidecar",
		"file:///tmp/x?metadata=skip&metadata=skip",
		"://nope",
		"s3://bkt\x7f",
	} {
		t.Run(u, func(t *testing.T) {
			_, err := Open(context.Background(), u)
			requireInvalid(t, err)
			var inv *stores.InvalidError
			require.ErrorAs(t, err, &inv)
			assert.Equal(t, "url", inv.Field)
		})
	}
}

func TestOpenURLErrorsDoNotLeakSecrets(t *testing.T) {
	_, err := Open(context.Background(), "ftp://user:hunter2@host/dir?sig=topsecret")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2")
	assert.NotContains(t, err.Error(), "topsecret")
}

func TestOpenFileMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent")
	_, err := Open(context.Background(), "file://"+filepath.ToSlash(dir))
	require.Error(t, err)
	assert.NotErrorIs(t, err, stores.ErrInvalid, "a missing directory is an I/O failure, not bad input")

	s := openURL(t, "file://"+filepath.ToSlash(dir)+"?create_dir=true")
	assert.DirExists(t, dir)
	assert.Equal(t, dir, s.root)
}

func TestOpenFileRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.Mkdir("bucket", 0o755))
	s := openURL(t, "file://./bucket")
	assert.Equal(t, filepath.Join(dir, "bucket"), s.root)
	h := seedCheckpoint(t, s, "orders", 1, 1, 0)
	key, err := s.Write(context.Background(), h)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(dir, "bucket", key))
}

func TestOpenAcceptsExplicitMetadataSkip(t *testing.T) {
	s := openURL(t, "file://"+filepath.ToSlash(t.TempDir())+"?metadata=skip")
	assert.NotEmpty(t, s.root)
}

func TestOpenRemoteAndMemHaveNoLocalRoot(t *testing.T) {
	assert.Empty(t, openURL(t, "mem://").root)

	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	setS3Env(t)
	require.NoError(t, backend.CreateBucket("present"))
	assert.Empty(t, openURL(t, s3URL("present", srv.URL)).root)

	_, err := Open(context.Background(), s3URL("absent", srv.URL))
	require.Error(t, err, "a bucket that does not exist is refused at Open")
	assert.NotErrorIs(t, err, stores.ErrInvalid)
}

// ObjectURL names objects the way Flink's restore path does, without the
// URL's query (driver options, possibly credentials).
func TestObjectURL(t *testing.T) {
	dir := t.TempDir()
	s := openURL(t, "file://"+filepath.ToSlash(dir)+"?create_dir=true")
	assert.Equal(t, "file://"+filepath.ToSlash(dir)+"/c1/j1/chk-7/_metadata", s.ObjectURL("c1/j1/chk-7/_metadata"))
	assert.Equal(t, "mem:///k", openURL(t, "mem://").ObjectURL("k"))

	for raw, want := range map[string]string{
		"s3://state?region=eu-west-1&endpoint=http://x":  "s3://state/c1/k",
		"s3://state?prefix=flink/prod/&region=eu-west-1": "s3://state/flink/prod/c1/k",
		"gs://state":              "gs://state/c1/k",
		"azblob://container?x=1":  "azblob://container/c1/k",
		"azblob://container/sub/": "azblob://container/sub/c1/k",
	} {
		u, root, err := parseBucketURL(raw)
		require.NoError(t, err, raw)
		assert.Equal(t, want, objectBase(u, root)+"c1/k", raw)
	}
}

// The drivers name the bucket in their own errors ("open bucket URL: ..."),
// which scrubbing turns into Open's own prefix: the message says it once.
func TestOpenErrorNamesTheBucketOnce(t *testing.T) {
	dir := filepath.ToSlash(t.TempDir())
	for name, u := range map[string]string{
		"file, unknown option": "file://" + dir + "?bogus=1",
		"s3, unknown option":   "s3://bkt?endpoint=https://KEYKEY:SECRETSECRET@127.0.0.1:1&regionn=x",
		"file, no directory":   "file://" + dir + "/absent",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Open(context.Background(), u)
			require.Error(t, err)
			assert.Equal(t, 1, strings.Count(err.Error(), "open bucket"), "%v", err)
			assert.NotContains(t, err.Error(), "SECRETSECRET")
		})
	}
}
