package blobstate

import "gocloud.dev/blob"

// OverBucket is the blob state store over a bucket its caller opened and
// keeps using: an in-process simulation (tools/lifecycle) shares one
// memory bucket between the finalizer and the job manager it plays, which
// writes checkpoint files that Open's own bucket would never see. base
// prefixes a key in ObjectURL ("mem://"). The store does not fsync: only a
// file:// bucket opened by Open needs it. Close closes the bucket.
func OverBucket(b *blob.Bucket, base string) *Store {
	return &Store{bucket: b, base: base, listPageSize: defaultListPageSize}
}
