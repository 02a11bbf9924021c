package ociimage

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// RefNameAnnotation names the image inside an OCI layout: the tag that
// `skopeo copy oci-archive:FILE:TAG` and `docker load` pick it by.
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// WriteArchive writes img as an OCI image layout, tagged tag, into a tar
// file at dest (entries sorted, timestamps mtime: the same image gives the
// same file).
func WriteArchive(img v1.Image, tag, dest string, mtime time.Time) error {
	return writeLayout(dest, mtime, func(p layout.Path) error {
		return p.AppendImage(img, layout.WithAnnotations(map[string]string{RefNameAnnotation: tag}))
	})
}

// WriteIndexArchive writes a multi-architecture image (BuildIndex) as an
// OCI image layout whose one entry, tagged tag, is the image index: a
// registry push (`skopeo copy --all`, `crane push --index`) carries every
// platform under the tag, and a pull picks the puller's.
func WriteIndexArchive(idx v1.ImageIndex, tag, dest string, mtime time.Time) error {
	return writeLayout(dest, mtime, func(p layout.Path) error {
		return p.AppendIndex(idx, layout.WithAnnotations(map[string]string{RefNameAnnotation: tag}))
	})
}

// writeLayout writes an OCI image layout, what add puts in it, as a tar
// file at dest.
func writeLayout(dest string, mtime time.Time, add func(layout.Path) error) error {
	dir, err := os.MkdirTemp("", "ociimage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("ociimage: layout: %w", err)
	}
	if err := add(p); err != nil {
		return fmt.Errorf("ociimage: layout: %w", err)
	}
	out, err := os.Create(dest)
	if err != nil {
		return err
	}
	if err := tarDir(dir, out, mtime); err != nil {
		out.Close()
		return fmt.Errorf("ociimage: %s: %w", dest, err)
	}
	return out.Close()
}

func tarDir(dir string, w io.Writer, mtime time.Time) error {
	tw := tar.NewWriter(w)
	// WalkDir visits in lexical order.
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		h := &tar.Header{Name: rel, Mode: 0o644, ModTime: mtime, Typeflag: tar.TypeReg}
		if d.IsDir() {
			h.Name, h.Mode, h.Typeflag = rel+"/", 0o755, tar.TypeDir
			return tw.WriteHeader(h)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h.Size = int64(len(b))
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// ReadArchive opens an archive WriteArchive wrote (unpacked under dir):
// the one image in it and its tag.
func ReadArchive(archive, dir string) (v1.Image, string, error) {
	top, d, err := readLayout(archive, dir)
	if err != nil {
		return nil, "", err
	}
	if d.MediaType != types.OCIManifestSchema1 {
		return nil, "", fmt.Errorf("ociimage: %s holds a %s, not one image", archive, d.MediaType)
	}
	img, err := top.Image(d.Digest)
	return img, d.Annotations[RefNameAnnotation], err
}

// ReadIndexArchive opens an archive WriteIndexArchive wrote (unpacked
// under dir): the image index in it and its tag.
func ReadIndexArchive(archive, dir string) (v1.ImageIndex, string, error) {
	top, d, err := readLayout(archive, dir)
	if err != nil {
		return nil, "", err
	}
	if d.MediaType != types.OCIImageIndex {
		return nil, "", fmt.Errorf("ociimage: %s holds a %s, not an image index", archive, d.MediaType)
	}
	idx, err := top.ImageIndex(d.Digest)
	return idx, d.Annotations[RefNameAnnotation], err
}

// readLayout unpacks an OCI layout archive under dir: its index.json and
// the one entry it must hold.
func readLayout(archive, dir string) (v1.ImageIndex, v1.Descriptor, error) {
	var none v1.Descriptor
	if err := unpack(archive, dir); err != nil {
		return nil, none, err
	}
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, none, err
	}
	m, err := top.IndexManifest()
	if err != nil {
		return nil, none, err
	}
	if len(m.Manifests) != 1 {
		return nil, none, fmt.Errorf("ociimage: %s holds %d entries, not one", archive, len(m.Manifests))
	}
	return top, m.Manifests[0], nil
}

func unpack(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(name, filepath.Clean(dir)+string(filepath.Separator)) {
			return fmt.Errorf("ociimage: %s: entry %q outside the archive", archive, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(name, 0o755)
		case tar.TypeReg:
			var b []byte
			if b, err = io.ReadAll(tr); err == nil {
				err = os.WriteFile(name, b, 0o644)
			}
		default:
			err = fmt.Errorf("ociimage: %s: unexpected entry %q", archive, h.Name)
		}
		if err != nil {
			return err
		}
	}
}
