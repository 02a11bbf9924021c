package world

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"gocloud.dev/blob"
)

// stateBucketName is the S3 bucket of a run; a run has its S3 endpoint to
// itself.
const stateBucketName = "state"

// blobWorld is the state bucket of a run: an in-process S3 endpoint
// (gofakes3) reached by the workers through s3blob, as a deployment on S3
// would be, with a fault layer in front of it (5xx answers, dropped
// requests, writes and deletes applied whose reply is lost). The harness,
// job manager side included, reads and writes through a second, clean
// endpoint on the same backend, so that no fault ever blinds the check.
type blobWorld struct {
	faulty *httptest.Server // the workers' endpoint
	clean  *httptest.Server // the harness's endpoint
	bucket *blob.Bucket     // the harness's view, through clean

	mu    sync.Mutex
	rules []*blobRule
	// failed counts the requests the fault layer failed, by how.
	failed map[blobMode]int
}

// blobMode is how the fault layer fails a request.
type blobMode string

const (
	// blob5xx answers 503 SlowDown without passing the request on.
	blob5xx blobMode = "503"
	// blobDropRequest closes the connection without passing it on.
	blobDropRequest blobMode = "dropped-request"
	// blobDropReply passes the request on (it is applied) and closes the
	// connection instead of answering.
	blobDropReply blobMode = "applied-reply-lost"
)

// blobRule fails every request of its method until removed.
type blobRule struct {
	method string
	mode   blobMode
	hits   int
	hit    chan struct{} // closed on the first hit
}

// awsEnv gives the AWS SDK static credentials and keeps it away from the
// EC2 metadata service and the user's own configuration; the workers get
// it in their environment, the harness's process sets it for itself.
func awsEnv(dir string) []string {
	return []string{
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_ACCESS_KEY_ID=faultharness",
		"AWS_SECRET_ACCESS_KEY=faultharness",
		"AWS_SESSION_TOKEN=",
		"AWS_PROFILE=",
		"AWS_REGION=us-east-1",
		"AWS_CONFIG_FILE=" + filepath.Join(dir, "aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(dir, "aws-credentials"),
	}
}

func startBlob(ctx context.Context, dir string) (_ *blobWorld, err error) {
	for _, kv := range awsEnv(dir) {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	backend := s3mem.New()
	if err := backend.CreateBucket(stateBucketName); err != nil {
		return nil, fmt.Errorf("create the state bucket: %w", err)
	}
	s3 := gofakes3.New(backend, gofakes3.WithoutVersioning()).Server()
	w := &blobWorld{failed: map[blobMode]int{}}
	w.clean = httptest.NewServer(s3)
	w.faulty = httptest.NewServer(w.middleware(s3))
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	if w.bucket, err = blob.OpenBucket(ctx, w.cleanURL()); err != nil {
		return nil, fmt.Errorf("open the state bucket: %w", err)
	}
	return w, nil
}

func s3BucketURL(endpoint string) string {
	return fmt.Sprintf("s3://%s?endpoint=%s&region=us-east-1&use_path_style=true&disable_https=true",
		stateBucketName, url.QueryEscape(endpoint))
}

// workerURL is the workers' bucket URL, through the fault layer.
func (w *blobWorld) workerURL() string { return s3BucketURL(w.faulty.URL) }

// cleanURL is the harness's bucket URL.
func (w *blobWorld) cleanURL() string { return s3BucketURL(w.clean.URL) }

// middleware applies the first rule matching each request.
func (w *blobWorld) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		rule := w.match(req)
		if rule == nil {
			next.ServeHTTP(rw, req)
			return
		}
		switch rule.mode {
		case blob5xx:
			rw.Header().Set("Content-Type", "application/xml")
			rw.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(rw, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>injected by the fault harness</Message></Error>`)
		case blobDropRequest:
			cut(rw)
		case blobDropReply:
			next.ServeHTTP(httptest.NewRecorder(), req)
			cut(rw)
		}
	})
}

// cut closes the request's connection without an answer.
func cut(rw http.ResponseWriter) {
	hj, ok := rw.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // a reset, not a polite close
	}
	_ = conn.Close()
}

// match finds the rule for an object request and counts its hit.
func (w *blobWorld) match(req *http.Request) *blobRule {
	// Path style: /<bucket>/<key>; bucket-level requests (listings) pass.
	key := strings.TrimPrefix(req.URL.Path, "/"+stateBucketName+"/")
	if key == req.URL.Path || key == "" {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.rules {
		if r.method == req.Method {
			r.hits++
			if r.hits == 1 {
				close(r.hit)
			}
			w.failed[r.mode]++
			return r
		}
	}
	return nil
}

// arm adds a rule; the returned function removes it and says how many
// requests it failed.
func (w *blobWorld) arm(method string, mode blobMode) (*blobRule, func() int) {
	r := &blobRule{method: method, mode: mode, hit: make(chan struct{})}
	w.mu.Lock()
	w.rules = append(w.rules, r)
	w.mu.Unlock()
	return r, func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		for i, x := range w.rules {
			if x == r {
				w.rules = append(w.rules[:i], w.rules[i+1:]...)
				break
			}
		}
		return r.hits
	}
}

// heal removes every rule.
func (w *blobWorld) heal() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rules = nil
}

// evidence counts the requests the fault layer failed, by how.
func (w *blobWorld) evidence() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for m, n := range w.failed {
		out["blob requests failed by the S3 fault layer: "+string(m)] = n
	}
	return out
}

func (w *blobWorld) close() {
	if w.bucket != nil {
		_ = w.bucket.Close()
	}
	if w.faulty != nil {
		w.faulty.CloseClientConnections()
		w.faulty.Close()
	}
	if w.clean != nil {
		w.clean.Close()
	}
}
