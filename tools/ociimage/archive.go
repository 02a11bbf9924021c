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
)

// RefNameAnnotation names the image inside an OCI layout: the tag that
// `skopeo copy oci-archive:FILE:TAG` and `docker load` pick it by.
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// WriteArchive writes img as an OCI image layout, tagged tag, into a tar
// file at dest (entries sorted, timestamps mtime: the same image gives the
// same file).
func WriteArchive(img v1.Image, tag, dest string, mtime time.Time) error {
	dir, err := os.MkdirTemp("", "ociimage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("ociimage: layout: %w", err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{RefNameAnnotation: tag})); err != nil {
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
	f, err := os.Open(archive)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", err
		}
		name := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(name, filepath.Clean(dir)+string(filepath.Separator)) {
			return nil, "", fmt.Errorf("ociimage: %s: entry %q outside the archive", archive, h.Name)
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
			return nil, "", err
		}
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, "", err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, "", err
	}
	if len(m.Manifests) != 1 {
		return nil, "", fmt.Errorf("ociimage: %s holds %d manifests, not one image", archive, len(m.Manifests))
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	return img, m.Manifests[0].Annotations[RefNameAnnotation], err
}
