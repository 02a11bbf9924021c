package flinkcluster

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

var javaOptsProperty = regexp.MustCompile(`<flink\.java\.opts>([^<]*)</flink\.java\.opts>`)

// JavaOpts reads the --add-opens and --add-exports that Flink needs on
// Java 17 from a pom's flink.java.opts property (flink/pom.xml's, which
// the plugin's tests run with): one list in the repository, the one of
// Flink's own config.yaml (env.java.opts.all).
func JavaOpts(pom string) ([]string, error) {
	b, err := os.ReadFile(pom)
	if err != nil {
		return nil, fmt.Errorf("java options: %w", err)
	}
	m := javaOptsProperty.FindSubmatch(b)
	if m == nil {
		return nil, fmt.Errorf("java options: no flink.java.opts property in %s", pom)
	}
	return strings.Fields(string(m[1])), nil
}
