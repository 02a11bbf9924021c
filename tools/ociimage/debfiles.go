package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path"
	"sort"
	"strings"
)

// Where the base's packages put what the image keeps.
const (
	zoneinfoDir = "usr/share/zoneinfo/"
	mozillaDir  = "usr/share/ca-certificates/mozilla/"
	// StatusDir holds one control file per package, as distroless
	// records its packages: what image scanners read to name them.
	StatusDir = "/var/lib/dpkg/status.d"
)

// base is what the image takes of its Debian packages.
type base struct {
	files []file
	// caBundle is the PEM bundle of the Mozilla certificates, nil without
	// ca-certificates among the packages.
	caBundle []byte
}

// readBase reads the .deb files (dpkg-deb): each one's control file under
// StatusDir and its copyright, tzdata's zone files (symbolic links
// included), and the CA bundle: every Mozilla certificate, sorted by name
// and concatenated, as update-ca-certificates builds it with every
// certificate enabled.
func readBase(debs []string) (base, error) {
	var b base
	var certs []string
	pems := map[string][]byte{}
	for _, deb := range debs {
		control, err := exec.Command("dpkg-deb", "-f", deb).Output()
		if err != nil {
			return b, fmt.Errorf("ociimage: dpkg-deb -f %s: %w", deb, err)
		}
		name := controlField(control, "Package")
		if name == "" {
			return b, fmt.Errorf("ociimage: %s: no Package field", deb)
		}
		b.files = append(b.files, file{name: strings.TrimPrefix(StatusDir, "/") + "/" + name, mode: 0o644, body: control})
		data, err := exec.Command("dpkg-deb", "--fsys-tarfile", deb).Output()
		if err != nil {
			return b, fmt.Errorf("ociimage: dpkg-deb --fsys-tarfile %s: %w", deb, err)
		}
		tr := tar.NewReader(bytes.NewReader(data))
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return b, fmt.Errorf("ociimage: %s: %w", deb, err)
			}
			n := strings.TrimSuffix(strings.TrimPrefix(path.Clean(h.Name), "./"), "/")
			switch {
			case n == "usr/share/doc/"+name+"/copyright" && h.Typeflag == tar.TypeReg:
				body, err := io.ReadAll(tr)
				if err != nil {
					return b, fmt.Errorf("ociimage: %s: %w", deb, err)
				}
				b.files = append(b.files, file{name: n, mode: 0o644, body: body})
			case strings.HasPrefix(n, mozillaDir) && strings.HasSuffix(n, ".crt") && h.Typeflag == tar.TypeReg:
				body, err := io.ReadAll(tr)
				if err != nil {
					return b, fmt.Errorf("ociimage: %s: %w", deb, err)
				}
				certs, pems[n] = append(certs, n), body
			case strings.HasPrefix(n+"/", zoneinfoDir):
				f, err := zoneFile(n, h, tr)
				if err != nil {
					return b, fmt.Errorf("ociimage: %s: %w", deb, err)
				}
				b.files = append(b.files, f)
			}
		}
	}
	sort.Strings(certs)
	for _, c := range certs {
		b.caBundle = append(b.caBundle, pems[c]...)
		if !bytes.HasSuffix(b.caBundle, []byte("\n")) {
			b.caBundle = append(b.caBundle, '\n')
		}
	}
	return b, nil
}

// zoneFile is one entry of tzdata's tree as the layer holds it: root's,
// world-readable.
func zoneFile(name string, h *tar.Header, r io.Reader) (file, error) {
	switch h.Typeflag {
	case tar.TypeDir:
		return file{name: name, mode: 0o755, dir: true}, nil
	case tar.TypeSymlink:
		return file{name: name, mode: 0o777, link: h.Linkname}, nil
	case tar.TypeReg:
		body, err := io.ReadAll(r)
		return file{name: name, mode: 0o644, body: body}, err
	}
	return file{}, fmt.Errorf("%s: unexpected entry type %q", name, h.Typeflag)
}

// controlField is one field of a control paragraph.
func controlField(control []byte, field string) string {
	for _, line := range strings.Split(string(control), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
