package flinkcluster

import (
	"path/filepath"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/cachedir"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/debian"
)

// Maven is the mvn command line of the harnesses: Maven from Debian if
// missing, its repository cached outside the repository (Maven keys
// artifacts by version itself) and shared by every harness, batch mode
// without transfer progress.
func Maven() ([]string, error) {
	if err := debian.Ensure(debian.Command("mvn"), "maven"); err != nil {
		return nil, err
	}
	repo := filepath.Join(cachedir.Root(), "maven", "repository")
	return []string{"mvn", "-B", "-ntp", "-Dmaven.repo.local=" + repo}, nil
}
