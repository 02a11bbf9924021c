package blobstate

import (
	"net/url"
	"path/filepath"
	"strings"
)

// objectBase is the URL prefix of the bucket's objects as other tools name
// them (Flink's restore path): the scheme and bucket (or, for file://, the
// absolute directory), plus a prefix the URL configures; never its query,
// which may hold credentials or driver options.
func objectBase(u *url.URL, root string) string {
	if root != "" {
		return "file://" + strings.TrimSuffix(filepath.ToSlash(root), "/") + "/"
	}
	base := u.Scheme + "://" + u.Host + "/"
	if p := strings.Trim(u.Path, "/"); p != "" {
		base += p + "/"
	}
	if p := strings.Trim(u.Query().Get("prefix"), "/"); p != "" {
		base += p + "/"
	}
	return base
}

// ObjectURL names the object at key the way a tool outside this process
// reaches it ("s3://bucket/c1/j1/chk-7/_metadata",
// "file:///var/state/c1/j1/chk-7/_metadata").
func (s *Store) ObjectURL(key string) string { return s.base + key }
