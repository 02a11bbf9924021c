// Package releasetest proves scripts/release.sh: run on a clone of the
// repository's tree for a test tag, it writes every artifact it promises
// where DIST says, named after the tag, with checksums that match, twice
// the same bytes.
package releasetest
