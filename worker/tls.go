package worker

import (
	"github.com/checkpoint-finalizer/finalizer/client"
)

// connection is the client package's view of the settings: one piece of
// code loads the TLS files and the API key and dials, for the worker and
// the command-line tool alike.
func (t TemporalConfig) connection() client.Connection {
	return client.Connection{
		Address:    t.Address,
		Namespace:  t.Namespace,
		TLS:        client.TLSConfig(t.TLS),
		APIKey:     t.APIKey.Reveal(),
		APIKeyFile: t.APIKeyFile,
	}
}

func (t *TemporalConfig) setConnection(c client.Connection) {
	t.Address, t.Namespace = c.Address, c.Namespace
	t.TLS = TLSConfig(c.TLS)
	t.APIKey, t.APIKeyFile = Secret(c.APIKey), c.APIKeyFile
}

func (t TLSConfig) enabled() bool { return client.TLSConfig(t).On() }

// addConnectionErrors reports what client.Connection.Check found, each
// under the setting it names.
func addConnectionErrors(add addFunc, c client.Connection) {
	for _, e := range c.Check() {
		add(e.Setting, "%v", e.Err)
	}
}
