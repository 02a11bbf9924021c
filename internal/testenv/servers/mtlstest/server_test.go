package mtlstest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"
)

// The server refuses a TLS client without a certificate and serves one
// with it.
func TestFrontendRequiresClientCertificate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := Start(t)

	for _, cert := range []bool{true, false} {
		cfg, err := s.ClientTLS(cert)
		require.NoError(t, err)
		c, err := sdkclient.DialContext(ctx, sdkclient.Options{HostPort: s.Frontend, Namespace: Namespace,
			ConnectionOptions: sdkclient.ConnectionOptions{TLS: cfg}})
		if cert {
			require.NoError(t, err)
			_, err = c.CheckHealth(ctx, &sdkclient.CheckHealthRequest{})
			require.NoError(t, err)
			c.Close()
		} else {
			require.Error(t, err, "no client certificate")
			// In TLS 1.3 the server checks the client's certificate after the
			// client has finished its side of the handshake; a client that
			// writes first sees its pipe broken before it reads the alert.
			// Every dial must fail, and one must read the server's reason.
			for i := 0; i < 10 && !strings.Contains(err.Error(), "certificate required"); i++ {
				_, err = sdkclient.DialContext(ctx, sdkclient.Options{HostPort: s.Frontend, Namespace: Namespace,
					ConnectionOptions: sdkclient.ConnectionOptions{TLS: cfg}})
				require.Error(t, err, "no client certificate")
			}
			require.ErrorContains(t, err, "certificate required", "no client certificate")
		}
	}
}
