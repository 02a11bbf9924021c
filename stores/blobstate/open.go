package blobstate

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"
	// The local drivers; the cloud ones register through package
	// blobstate/cloud, which the processes that open buckets import.
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Schemes returns the bucket URL schemes Open accepts (a fresh slice, so
// no caller can change what Open accepts); s3, gs and azblob need package
// blobstate/cloud imported.
func Schemes() []string { return []string{"file", "mem", "s3", "gs", "azblob"} }

// defaultListPageSize is how many objects one listing page of Discard asks for.
const defaultListPageSize = 1000

// Store is the blob state store over one bucket. It is safe for concurrent
// use.
type Store struct {
	bucket *blob.Bucket
	// root is the absolute directory of a file:// bucket, "" otherwise: only
	// a local bucket needs (and allows) fsync by this package.
	root string
	// base prefixes a key to name its object outside this process.
	base string
	// listPageSize bounds one listing of Discard; tests lower it to
	// exercise paging.
	listPageSize int
	// onSync, when set, sees every path fsynced (tests).
	onSync func(path string)
	// scrubber hides the URL's credentials in the driver's errors, which
	// quote the URL they were opened with (an S3 endpoint's user info in
	// every failed request): they reach activity results and histories.
	scrubber scrubber
}

// Open opens the bucket named by a gocloud URL. The scheme is checked
// before anything connects; an unsupported one is invalid input. A file://
// bucket is opened with metadata=skip and no_tmp_dir (see the package
// documentation); an explicit metadata value other than "skip" is refused.
// Open fails if the bucket is not accessible.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	u, root, err := parseBucketURL(rawURL)
	if err != nil {
		return nil, err
	}
	if !blob.DefaultURLMux().ValidBucketScheme(u.Scheme) {
		return nil, fmt.Errorf("open bucket %s: no driver for %s:// in this binary (import %q)", redact(u), u.Scheme, "github.com/checkpoint-finalizer/finalizer/stores/blobstate/cloud")
	}
	// The drivers print the URL they were given, credentials included.
	scrubber := newScrubber(u, rawURL)
	scrub := scrubber.scrub
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, openError(redact(u), scrub(err))
	}
	s := &Store{bucket: b, root: root, base: objectBase(u, root), listPageSize: defaultListPageSize, scrubber: scrubber}
	ok, err := b.IsAccessible(ctx)
	if err == nil && !ok {
		err = ErrBucketInaccessible
	}
	if err != nil {
		return nil, closeOnError(b, fmt.Errorf("open bucket %s: %w", redact(u), scrub(err)))
	}
	if root != "" && u.Query().Get("create_dir") != "" {
		// create_dir may have just created the root: make its entry durable.
		if err := s.syncDir(filepath.Dir(root)); err != nil {
			return nil, closeOnError(b, fmt.Errorf("open bucket %s: %w", redact(u), err))
		}
	}
	return s, nil
}

// Close releases the bucket.
func (s *Store) Close() error {
	if err := s.bucket.Close(); err != nil {
		return fmt.Errorf("close bucket: %w", err)
	}
	return nil
}

// openError is a driver's failure to open the bucket named redacted. The
// drivers start their message with "open bucket URL: ", which scrubbing
// turns into this prefix: it is dropped, so that the bucket is named once.
func openError(redacted string, err error) error {
	prefix := "open bucket " + redacted + ": "
	if msg, ok := strings.CutPrefix(err.Error(), prefix); ok {
		cause := err
		if s, ok := errors.AsType[*scrubbedError](err); ok {
			cause = s.err
		}
		// A scrubbedError, so that the cause's own message, which may
		// quote the URL whole, is never printed link by link.
		err = &scrubbedError{msg: msg, err: cause}
	}
	return fmt.Errorf("%s%w", prefix, err)
}

func closeOnError(b *blob.Bucket, err error) error {
	if cerr := b.Close(); cerr != nil {
		return fmt.Errorf("%w (and closing the bucket: %v)", err, cerr)
	}
	return err
}

// parseBucketURL validates the URL and, for file://, adds the options this
// package depends on and returns the absolute root directory.
func parseBucketURL(rawURL string) (*url.URL, string, error) {
	bad := func(format string, args ...any) (*url.URL, string, error) {
		return nil, "", &stores.InvalidError{Field: "url", Rule: fmt.Sprintf(format, args...)}
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Parse echoes the input, which may hold secrets: keep only the reason.
		if uerr, ok := errors.AsType[*url.Error](err); ok {
			return bad("does not parse: %v", uerr.Err)
		}
		return bad("does not parse")
	}
	switch u.Scheme {
	case "file":
	case "mem":
		return u, "", nil
	case "s3", "gs", "azblob":
		if u.Host == "" {
			return bad("%s:// needs a bucket name as host", u.Scheme)
		}
		return u, "", nil
	default:
		return bad("scheme %q is not one of %s", u.Scheme, strings.Join(Schemes(), ", "))
	}
	// The same path rule as fileblob's URLOpener: host "." means relative.
	path := u.Path
	if u.Host == "." {
		path = strings.TrimPrefix(path, "/")
	}
	if path == "" || path == "/" && u.Host != "." {
		return bad("file:// needs a directory path other than the file system root")
	}
	q := u.Query()
	if m, ok := q["metadata"]; ok && (len(m) != 1 || m[0] != "skip") {
		return bad("file:// supports only metadata=skip, got %q", m)
	}
	q.Set("metadata", "skip")
	q.Set("no_tmp_dir", "true")
	u.RawQuery = q.Encode()
	root, err := filepath.Abs(filepath.FromSlash(path))
	if err != nil {
		return nil, "", fmt.Errorf("resolve bucket directory %q: %w", path, err)
	}
	return u, root, nil
}

// redact hides credentials a URL may carry in its user info or query.
func redact(u *url.URL) string {
	r := *u
	r.User = nil
	r.RawQuery = ""
	return r.String()
}
