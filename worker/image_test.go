package worker

import (
	"debug/buildinfo"
	"debug/elf"
	"fmt"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	fversion "github.com/checkpoint-finalizer/finalizer/internal/version"
)

// No Docker engine runs here, so the image's build is exercised as far as
// it can be without one: the Dockerfile's own `go build` commands, run as
// written in a copy of the build context (the tree minus .dockerignore),
// into a temporary folder instead of /out.

// goBuild is one `go build` command of the Dockerfile's build stage.
type goBuild struct {
	env  []string // NAME=value words before `go`
	args []string // everything after `go build`
	out  string   // the -o path in the image
	pkg  string
}

// dockerfileInstructions returns the Dockerfile's instructions, one string
// each: continuation lines joined, comments dropped.
func dockerfileInstructions(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	require.NoError(t, err)
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if strings.HasSuffix(trimmed, `\`) {
			cur.WriteString(strings.TrimSuffix(trimmed, `\`) + " ")
			continue
		}
		cur.WriteString(trimmed)
		out = append(out, cur.String())
		cur.Reset()
	}
	require.Zero(t, cur.Len(), "the Dockerfile ends inside a continuation")
	return out
}

// dockerfileGoBuilds parses every `go build` of the RUN instructions.
func dockerfileGoBuilds(t *testing.T) []goBuild {
	t.Helper()
	var builds []goBuild
	for _, ins := range dockerfileInstructions(t) {
		rest, ok := strings.CutPrefix(ins, "RUN ")
		if !ok {
			continue
		}
		for _, cmd := range strings.Split(rest, "&&") {
			words, err := shellWords(cmd)
			require.NoError(t, err, "RUN %s", cmd)
			// RUN's own options (--mount=...) come first.
			for len(words) > 0 && strings.HasPrefix(words[0], "--") {
				words = words[1:]
			}
			var b goBuild
			for len(words) > 0 && strings.Contains(words[0], "=") {
				b.env = append(b.env, words[0])
				words = words[1:]
			}
			if len(words) < 2 || words[0] != "go" || words[1] != "build" {
				continue
			}
			b.args = words[2:]
			require.NotEmpty(t, b.args, "go build without a package: %s", cmd)
			b.pkg = b.args[len(b.args)-1]
			i := slices.Index(b.args, "-o")
			require.True(t, i >= 0 && i+1 < len(b.args), "go build without -o: %s", cmd)
			b.out = b.args[i+1]
			builds = append(builds, b)
		}
	}
	return builds
}

// shellWords splits a command line the way sh does for the quoting the
// Dockerfile uses: blanks separate words, '...' and "..." quote. Anything
// needing expansion is refused rather than misread.
func shellWords(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote rune
	)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '$' || r == '`' || r == '\\' || r == ';' || r == '|':
			return nil, fmt.Errorf("%q: %q is not supported by this parser", s, r)
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("%q: unterminated %c quote", s, quote)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// The image ships both commands, built static and stripped: the
// Dockerfile's go build lines, run here with their own flags, give
// binaries without an ELF interpreter or shared libraries that answer
// --version as internal/version prints it, and the runtime stage installs
// each one.
func TestDockerfileBuildsStaticBinaries(t *testing.T) {
	realserver.RequireBuild(t, "the Dockerfile's static binaries")
	builds := dockerfileGoBuilds(t)
	var names []string
	for _, b := range builds {
		names = append(names, filepath.Base(b.out))
	}
	require.ElementsMatch(t, []string{"finalizer-worker", "finalizer"}, names)

	root := buildContext(t)
	dir := t.TempDir()
	for _, b := range builds {
		name := filepath.Base(b.out)
		t.Run(name, func(t *testing.T) {
			assert.Contains(t, b.env, "CGO_ENABLED=0", "a static binary for distroless/static")
			assert.Contains(t, b.args, "-trimpath")
			ldflags, ok := flagValue(b.args, "-ldflags")
			require.True(t, ok, "no -ldflags")
			assert.ElementsMatch(t, []string{"-s", "-w"}, strings.Fields(ldflags), "stripped")
			assert.Contains(t, dockerfileInstructions(t),
				fmt.Sprintf("COPY --from=build %s /usr/local/bin/%s", b.out, name), "the runtime stage installs it")

			bin := filepath.Join(dir, name)
			args := slices.Clone(b.args)
			args[slices.Index(args, "-o")+1] = bin
			cmd := exec.Command("go", append([]string{"build"}, args...)...)
			cmd.Dir = root
			// Only the Dockerfile's flags: the golang image sets no GOFLAGS.
			cmd.Env = append(os.Environ(), append([]string{"GOFLAGS="}, b.env...)...)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "go build %s:\n%s", strings.Join(b.args, " "), out)

			f, err := elf.Open(bin)
			require.NoError(t, err)
			defer f.Close()
			for _, p := range f.Progs {
				assert.NotEqual(t, elf.PT_INTERP, p.Type, "an ELF interpreter: dynamically linked")
			}
			libs, err := f.ImportedLibraries()
			require.NoError(t, err)
			assert.Empty(t, libs, "DT_NEEDED entries")
			assert.Nil(t, f.Section(".symtab"), "-s strips the symbol table")
			assert.Nil(t, f.Section(".debug_info"), "-w leaves out DWARF")

			bi, err := buildinfo.ReadFile(bin)
			require.NoError(t, err)
			settings := map[string]string{}
			for _, s := range bi.Settings {
				settings[s.Key] = s.Value
			}
			assert.Equal(t, "0", settings["CGO_ENABLED"])
			assert.Equal(t, "true", settings["-trimpath"])
			// -ldflags is not recorded under -trimpath; -s and -w show above.
			// .git is not in the build context: the binary cannot know its commit.
			assert.NotContains(t, settings, "vcs.revision")

			out, err = exec.Command(bin, "--version").CombinedOutput()
			require.NoError(t, err, "%s", out)
			want := fversion.Info{Version: bi.Main.Version, Revision: "unknown", GoVersion: bi.GoVersion}
			if want.Version == "" {
				want.Version = "(devel)"
			}
			assert.Equal(t, name+" "+want.String(), strings.TrimSpace(string(out)))
		})
	}
}

// buildContext copies what `docker build .` sends: the repository's files
// less those .dockerignore excludes, so a build needing an excluded file
// fails here as it would in Docker.
func buildContext(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs("..")
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(src, ".dockerignore"))
	require.NoError(t, err)
	var patterns [][]string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		require.False(t, strings.HasPrefix(line, "!"), ".dockerignore exception %q: not supported by this test", line)
		patterns = append(patterns, strings.Split(strings.TrimPrefix(filepath.Clean(line), "/"), "/"))
	}
	dst := t.TempDir()
	err = filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil || rel == "." {
			return err
		}
		parts := strings.Split(rel, string(filepath.Separator))
		for _, p := range patterns {
			if ignoreMatch(p, parts) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(target, 0o755)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		case info.Mode()&os.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		return nil // sockets, pipes: not build input
	})
	require.NoError(t, err, "copying the build context")
	return dst
}

// ignoreMatch reports whether a .dockerignore pattern (split at "/")
// matches a path (split likewise): "**" spans any number of folders, each
// other element is a filepath.Match pattern.
func ignoreMatch(pattern, path []string) bool {
	if len(pattern) == 0 {
		return len(path) == 0
	}
	if pattern[0] == "**" {
		for i := 0; i <= len(path); i++ {
			if ignoreMatch(pattern[1:], path[i:]) {
				return true
			}
		}
		return false
	}
	if len(path) == 0 {
		return false
	}
	ok, err := filepath.Match(pattern[0], path[0])
	return err == nil && ok && ignoreMatch(pattern[1:], path[1:])
}

func TestDockerignoreMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{".git", ".git", true},
		{"deploy", "deploy", true},
		{"deploy", "worker/deploy", false},
		{"**/*.test", "worker.test", true},
		{"**/*.test", "worker/cmd/x.test", true},
		{"**/*.test", "worker/x_test.go", false},
		{"**/testdata/fuzz", "stores/testdata/fuzz", true},
		{"**/testdata/fuzz", "testdata/fuzz", true},
		{"**/testdata/fuzz", "testdata/other", false},
	} {
		got := ignoreMatch(strings.Split(c.pattern, "/"), strings.Split(c.path, "/"))
		assert.Equal(t, c.want, got, "%s ~ %s", c.pattern, c.path)
	}
}

// The builder's Go is not older than go.mod's go directive (nor its
// toolchain line): an older one refuses the module or downloads another.
func TestDockerfileGoVersion(t *testing.T) {
	var builder string
	for _, from := range dockerfileFroms(t) {
		if tag, ok := strings.CutPrefix(from, "golang:"); ok {
			builder, _, _ = strings.Cut(tag, "-")
		}
	}
	require.NotEmpty(t, builder, "the build stage is FROM golang:<version>-...")
	require.True(t, version.IsValid("go"+builder), "golang:%s is not a Go release", builder)

	gomod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	require.NotNil(t, m, "go.mod has no go directive")
	assert.GreaterOrEqual(t, version.Compare("go"+builder, "go"+string(m[1])), 0,
		"Dockerfile builder golang:%s is older than go.mod's go %s", builder, m[1])
	if tc := regexp.MustCompile(`(?m)^toolchain (\S+)$`).FindSubmatch(gomod); tc != nil {
		assert.GreaterOrEqual(t, version.Compare("go"+builder, string(tc[1])), 0,
			"Dockerfile builder golang:%s is older than go.mod's toolchain %s", builder, tc[1])
	}
}
