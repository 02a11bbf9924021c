// Package cloud registers the object-store drivers blobstate.Open accepts
// beyond file:// and mem:// (s3://, gs://, azblob://). The processes that
// open buckets import it for its side effect; a library that only names
// checkpoints (package client, what a job manager links) does not, and so
// stays free of the cloud SDKs.
package cloud

import (
	_ "gocloud.dev/blob/azureblob" // azblob://
	_ "gocloud.dev/blob/gcsblob"   // gs://
	_ "gocloud.dev/blob/s3blob"    // s3://
)
