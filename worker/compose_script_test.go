package worker

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/temporaltest"
)

// The registration script of the one-shot compose service really works:
// run with the same Temporal CLI against a dev server that has none of our
// attributes, twice (an `up` after an `up`), it leaves exactly the types
// the workflows upsert.
func TestComposeSearchAttributeScriptRuns(t *testing.T) {
	srv := temporaltest.Start(t, devserver.Options{})
	cli, ok := devserver.CachedCLI()
	require.True(t, ok, "temporaltest.Start installs the CLI")

	svc := loadCompose(t).Services[svcAttrs]
	require.Equal(t, []string{"/bin/sh", "-ec"}, []string(svc.Entrypoint))
	require.Len(t, svc.Command, 1)
	environ := append(os.Environ(),
		"PATH="+filepath.Dir(cli)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TEMPORAL_ADDRESS="+srv.HostPort,
		// The CLI would otherwise read a developer's own profile.
		"HOME="+t.TempDir())
	for k, v := range svc.Environment {
		if k != "TEMPORAL_ADDRESS" {
			environ = append(environ, k+"="+*v)
		}
	}
	for run := 1; run <= 2; run++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, svc.Entrypoint[0], append(svc.Entrypoint[1:], svc.Command[0])...)
		cmd.Env = environ
		out, err := cmd.CombinedOutput()
		cancel()
		require.NoError(t, err, "run %d:\n%s", run, out)
		if run == 2 {
			assert.Len(t, regexp.MustCompile(`(?m)^search attribute \S+ present$`).FindAllString(string(out), -1),
				len(contract.SearchAttributes()), "the second run creates nothing:\n%s", out)
		}
	}

	c, err := client.Dial(client.Options{HostPort: srv.HostPort, Logger: quietSDKLogger()})
	require.NoError(t, err)
	defer c.Close()
	resp, err := c.OperatorService().ListSearchAttributes(context.Background(),
		&operatorservice.ListSearchAttributesRequest{Namespace: srv.Namespace})
	require.NoError(t, err)
	for name, typ := range contract.SearchAttributes() {
		want := enumspb.IndexedValueType(enumspb.IndexedValueType_shorthandValue[typ])
		assert.Equal(t, want, resp.GetCustomAttributes()[name], name)
	}
}
