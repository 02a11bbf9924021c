package pluginjar

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeJar(t *testing.T, entries map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plugin.jar")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := zip.NewWriter(f)
	for name, content := range entries {
		e, err := w.Create(name)
		require.NoError(t, err)
		_, err = e.Write([]byte(content))
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
	return path
}

func TestCheckPassesAJarWithinScope(t *testing.T) {
	jar := writeJar(t, map[string]string{
		"META-INF/MANIFEST.MF": "Manifest-Version: 1.0\n",
		"io/github/checkpointfinalizer/flink/FinalizerHaServicesFactory.class":           "",
		"io/github/checkpointfinalizer/flink/shaded/io/temporal/client/Client.class":     "",
		"META-INF/versions/21/io/github/checkpointfinalizer/flink/shaded/io/X.class":     "",
		"org/apache/flink/kubernetes/highavailability/KubernetesHAServicesFactory.class": "",
		"META-INF/services/io.github.checkpointfinalizer.flink.shaded.io.grpc.NameResolverProvider": "# a comment\n" +
			"io.github.checkpointfinalizer.flink.shaded.io.grpc.internal.DnsNameResolverProvider\n\n",
		"google/protobuf/any.proto": "syntax = \"proto3\";",
	})
	require.NoError(t, Check(jar, Scope))
}

func TestCheckNamesEachLeak(t *testing.T) {
	jar := writeJar(t, map[string]string{
		"io/github/checkpointfinalizer/flink/Ok.class":                       "",
		"io/temporal/client/WorkflowClient.class":                            "",
		"META-INF/versions/21/io/temporal/internal/task/VirtualThread.class": "",
		"org/apache/flink/kubernetes/highavailability/Other.class":           "",
		// Its interface is not relocated, so a job's BlockHound would load it.
		"META-INF/services/reactor.blockhound.integration.BlockHoundIntegration":              "io.github.checkpointfinalizer.flink.shaded.X\n",
		"META-INF/services/io.github.checkpointfinalizer.flink.shaded.io.grpc.ServerProvider": "io.grpc.netty.NettyServerProvider\n",
		"META-INF/native/libio_grpc_netty_shaded_netty_transport_native_epoll_x86_64.so":      "",
	})
	err := Check(jar, Scope)
	require.ErrorIs(t, err, ErrLeak)
	for _, leak := range []string{
		"io/temporal/client/WorkflowClient.class",
		"META-INF/versions/21/io/temporal/internal/task/VirtualThread.class",
		"org/apache/flink/kubernetes/highavailability/Other.class",
		"META-INF/services/reactor.blockhound.integration.BlockHoundIntegration names reactor.blockhound.integration.BlockHoundIntegration",
		"META-INF/services/io.github.checkpointfinalizer.flink.shaded.io.grpc.ServerProvider names io.grpc.netty.NettyServerProvider",
		"META-INF/native/libio_grpc_netty_shaded_netty_transport_native_epoll_x86_64.so (a native library)",
	} {
		assert.Contains(t, err.Error(), leak)
	}
	assert.NotContains(t, err.Error(), "flink/Ok.class")
	assert.Contains(t, err.Error(), "6 entries")
}

func TestCheckFailsOnAJarItCannotRead(t *testing.T) {
	err := Check(filepath.Join(t.TempDir(), "missing.jar"), Scope)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrLeak)
}
