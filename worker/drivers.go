package worker

// The worker opens whatever bucket its configuration names.
import _ "github.com/checkpoint-finalizer/finalizer/stores/blobstate/cloud"
