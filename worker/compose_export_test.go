package worker

// For this folder's external tests (package worker_test), which may import
// tools/topology: it imports this package, so these tests cannot.

// LoadCompose parses docker-compose.yml as TestCompose* do.
var LoadCompose = loadCompose

// The compose file's service names.
const (
	SvcTemporal = svcTemporal
	SvcSchema   = svcSchema
	SvcAttrs    = svcAttrs
	SvcWorker   = svcWorker
	SvcDB       = svcDB
	SvcUI       = svcUI
)
