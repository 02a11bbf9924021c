package ociimage

import (
	"fmt"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// BuildIndex builds one image per spec (one per platform, in the order
// given) and the OCI image index over them, each entry naming its
// platform: one multi-architecture image.
func BuildIndex(specs []Spec) (v1.ImageIndex, error) {
	if len(specs) == 0 {
		return nil, fmt.Errorf("ociimage: no platform to build")
	}
	seen := map[string]bool{}
	adds := make([]mutate.IndexAddendum, 0, len(specs))
	for _, s := range specs {
		platform := s.OS + "/" + s.Architecture
		if seen[platform] {
			return nil, fmt.Errorf("ociimage: platform %s given twice", platform)
		}
		seen[platform] = true
		img, err := Build(s)
		if err != nil {
			return nil, fmt.Errorf("ociimage: %s: %w", platform, err)
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			MediaType: types.OCIManifestSchema1,
			Platform:  &v1.Platform{OS: s.OS, Architecture: s.Architecture},
		}})
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...), nil
}
