package blobstate

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"

	_ "github.com/checkpoint-finalizer/finalizer/stores/blobstate/cloud" // s3://
)

func TestFileblob(t *testing.T) {
	runConformance(t, openFile)
}

func TestS3(t *testing.T) {
	runConformance(t, s3Opener(t))
}

func TestMemblob(t *testing.T) {
	runConformance(t, func(t *testing.T) *Store { return openURL(t, "mem://") })
}

// openFile opens a store over a fresh local directory.
func openFile(t *testing.T) *Store {
	return openURL(t, "file://"+filepath.ToSlash(t.TempDir()))
}

func openURL(t testing.TB, u string) *Store {
	t.Helper()
	s, err := Open(context.Background(), u)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// s3Opener starts an in-process S3 endpoint (gofakes3) for the calling
// test and returns an opener that gives each subtest a fresh bucket on it,
// reached through s3blob as a real deployment would be.
func s3Opener(t *testing.T) func(t *testing.T) *Store {
	open := s3OpenerTB(t)
	return func(t *testing.T) *Store { return open(t) }
}

func s3OpenerTB(t testing.TB) func(t testing.TB) *Store {
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	setS3Env(t)
	var n atomic.Int64
	return func(t testing.TB) *Store {
		name := fmt.Sprintf("bkt-%d", n.Add(1))
		require.NoError(t, backend.CreateBucket(name))
		return openURL(t, s3URL(name, srv.URL))
	}
}

func s3URL(bucket, endpoint string) string {
	return fmt.Sprintf("s3://%s?endpoint=%s&region=us-east-1&use_path_style=true&disable_https=true",
		bucket, url.QueryEscape(endpoint))
}

// setS3Env gives the AWS SDK static credentials and keeps it away from the
// EC2 metadata service and the user's own configuration.
func setS3Env(t testing.TB) {
	dir := t.TempDir()
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_ACCESS_KEY_ID", "test-key")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
}
