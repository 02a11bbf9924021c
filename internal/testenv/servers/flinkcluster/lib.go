package flinkcluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/cachedir"
)

//go:embed lib.pom.xml
var libPOM []byte

// Lib returns the folder of a Flink distribution's lib/ for version,
// assembled from Maven Central's module jars with mvn (Maven's command
// line, e.g. from Maven) on first use and cached under the cache root,
// keyed by the version and by lib.pom.xml's content, so that a changed
// list of jars assembles again.
func Lib(ctx context.Context, mvn []string, version string) (string, error) {
	sum := sha256.Sum256(libPOM)
	dir := filepath.Join(cachedir.Root(), "flink-lib", version+"-"+hex.EncodeToString(sum[:4]))
	lib := filepath.Join(dir, "lib")
	if _, err := os.Stat(lib); err == nil {
		return lib, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("flink lib %s: %w", version, err)
	}
	// Assembled aside and renamed into place: a cached lib/ is complete.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
	if err != nil {
		return "", fmt.Errorf("flink lib %s: %w", version, err)
	}
	defer os.RemoveAll(tmp)
	pom := filepath.Join(tmp, "pom.xml")
	if err := os.WriteFile(pom, libPOM, 0o644); err != nil {
		return "", fmt.Errorf("flink lib %s: %w", version, err)
	}
	args := append(mvn[1:], "-f", pom, "-Dflink.version="+version,
		"org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies",
		"-DincludeScope=runtime", "-DoutputDirectory="+filepath.Join(tmp, "lib"))
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, mvn[0], args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("flink lib %s: mvn copy-dependencies: %w\n%s", version, err, out.Bytes())
	}
	// Another process may have won the race: its lib/ is as good.
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(lib); statErr != nil {
			return "", fmt.Errorf("flink lib %s: %w", version, err)
		}
	}
	return lib, nil
}
