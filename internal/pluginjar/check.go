package pluginjar

import (
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// ErrLeak is what Check wraps when the jar carries anything outside its
// scope.
var ErrLeak = errors.New("the plugin jar carries classes or registrations outside its package")

// Scope is what the plugin's jar may carry, as class-name prefixes: its
// own package, which holds the relocated libraries
// (io.github.checkpointfinalizer.flink.shaded), and the one class of
// Flink's name that is the plugin's entry point for the Flink Kubernetes
// Operator (docs/flink.md).
var Scope = []string{
	"io.github.checkpointfinalizer.flink.",
	"org.apache.flink.kubernetes.highavailability.KubernetesHAServicesFactory",
}

// versioned is a multi-release jar's folder of classes for one Java
// version; they are loaded under the name that follows it.
var versioned = regexp.MustCompile(`^META-INF/versions/[0-9]+/`)

const (
	services = "META-INF/services/"
	// native holds libraries a library's loader finds by a name derived
	// from its unrelocated package (Netty's): one here would be loaded by
	// the same library a job bundles, whatever its version.
	native = "META-INF/native/"
)

// Check lists the jar and returns an error wrapping ErrLeak that names
// each class outside scope (prefixes of dotted class names), each service
// file whose interface or providers are outside it, and each native
// library; nil when there is none.
func Check(jar string, scope []string) error {
	r, err := zip.OpenReader(jar)
	if err != nil {
		return fmt.Errorf("plugin jar: %w", err)
	}
	defer r.Close()
	var leaks []string
	for _, f := range r.File {
		name := versioned.ReplaceAllString(f.Name, "")
		switch {
		case strings.HasSuffix(name, "/"):
		case strings.HasPrefix(name, native):
			leaks = append(leaks, f.Name+" (a native library)")
		case strings.HasPrefix(name, services):
			named, err := registered(f)
			if err != nil {
				return fmt.Errorf("plugin jar %s: %w", f.Name, err)
			}
			for _, class := range append([]string{strings.TrimPrefix(name, services)}, named...) {
				if !within(class, scope) {
					leaks = append(leaks, f.Name+" names "+class)
				}
			}
		case strings.HasSuffix(name, ".class") && !strings.HasPrefix(name, "META-INF/"):
			if class := strings.ReplaceAll(strings.TrimSuffix(name, ".class"), "/", "."); !within(class, scope) {
				leaks = append(leaks, f.Name)
			}
		}
	}
	if len(leaks) == 0 {
		return nil
	}
	slices.Sort(leaks)
	return fmt.Errorf("%w: %d entries of %s, by package %s; all:\n%s", ErrLeak, len(leaks), jar,
		byPackage(leaks), strings.Join(leaks, "\n"))
}

// registered are the provider classes a service file names.
func registered(f *zip.File) ([]string, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var classes []string
	s := bufio.NewScanner(rc)
	for s.Scan() {
		line, _, _ := strings.Cut(s.Text(), "#")
		if line = strings.TrimSpace(line); line != "" {
			classes = append(classes, line)
		}
	}
	return classes, s.Err()
}

func within(class string, scope []string) bool {
	for _, prefix := range scope {
		if strings.HasPrefix(class, prefix) {
			return true
		}
	}
	return false
}

// byPackage counts the leaks by their first two path elements, the
// summary a person reads first.
func byPackage(leaks []string) string {
	counts := map[string]int{}
	for _, l := range leaks {
		parts := strings.SplitN(versioned.ReplaceAllString(l, ""), "/", 3)
		counts[strings.Join(parts[:min(2, len(parts))], "/")]++
	}
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(counts)) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, counts[k])
	}
	return b.String()
}
