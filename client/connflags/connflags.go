// Package connflags is the Temporal connection as flags: one definition
// that the worker and the finalizer command register, so one environment
// configures both. A setting comes from, highest first: its flag, its
// FINALIZER_ variable (--temporal-address: FINALIZER_TEMPORAL_ADDRESS),
// Temporal's own TEMPORAL_* variable, the temporal.toml profile, Default.
package connflags

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
)

// Default is the lowest layer: the local dev server.
var Default = client.Connection{Address: "127.0.0.1:7233", Namespace: "default"}

// EnvAPIKey holds the API key: it has no flag, which every process
// listing would show.
var EnvAPIKey = flagenv.EnvName(client.SettingAPIKey)

// Flags holds what the connection's flags and FINALIZER_ variables set,
// empty where they set nothing so the lower layers show through.
type Flags struct {
	set     client.Connection
	profile string
}

// Register adds the connection's flags to fs, backed by their variables
// and read by flagenv.Resolve.
func (f *Flags) Register(fs *pflag.FlagSet) {
	under := func(usage, name, temporal string) string {
		return usage + " ($" + flagenv.EnvName(name) + "; under it " + temporal + ")"
	}
	fs.StringVar(&f.profile, client.SettingProfile, "",
		under("`profile` of Temporal's temporal.toml (the file $TEMPORAL_CONFIG_FILE names, else ~/.config/temporalio/temporal.toml)",
			client.SettingProfile, "$TEMPORAL_PROFILE, else default"))
	fs.StringVar(&f.set.Address, client.SettingAddress, "",
		under("Temporal frontend `host:port` (default "+Default.Address+")", client.SettingAddress, "$TEMPORAL_ADDRESS, profile address"))
	fs.StringVar(&f.set.Namespace, client.SettingNamespace, "",
		under("Temporal `namespace` (default \""+Default.Namespace+"\")", client.SettingNamespace, "$TEMPORAL_NAMESPACE, profile namespace"))
	fs.BoolVar(&f.set.TLS.Enabled, client.SettingTLS, false,
		under("TLS with the system roots; implied by any --temporal-tls-* flag", client.SettingTLS, "$TEMPORAL_TLS, profile [tls]"))
	fs.StringVar(&f.set.TLS.CAFile, client.SettingTLSCAFile, "",
		under("PEM CA bundle `file` to verify Temporal's certificate (default: system roots)", client.SettingTLSCAFile,
			"$TEMPORAL_TLS_SERVER_CA_CERT_PATH, profile tls.server_ca_cert_path"))
	fs.StringVar(&f.set.TLS.CertFile, client.SettingTLSCertFile, "",
		under("PEM client certificate `file` for mTLS, with --temporal-tls-key-file", client.SettingTLSCertFile,
			"$TEMPORAL_TLS_CLIENT_CERT_PATH, profile tls.client_cert_path"))
	fs.StringVar(&f.set.TLS.KeyFile, client.SettingTLSKeyFile, "",
		under("PEM client key `file` for mTLS, with --temporal-tls-cert-file", client.SettingTLSKeyFile,
			"$TEMPORAL_TLS_CLIENT_KEY_PATH, profile tls.client_key_path"))
	fs.StringVar(&f.set.TLS.ServerName, client.SettingTLSServerName, "",
		under("`name` to verify Temporal's certificate against", client.SettingTLSServerName,
			"$TEMPORAL_TLS_SERVER_NAME, profile tls.server_name"))
	fs.StringVar(&f.set.APIKeyFile, client.SettingAPIKeyFile, "",
		under("`file` holding the Temporal API key; or the key itself in $"+EnvAPIKey, client.SettingAPIKeyFile,
			"$TEMPORAL_API_KEY, profile api_key"))
	names := []string{client.SettingProfile, client.SettingAddress, client.SettingNamespace, client.SettingTLS,
		client.SettingTLSCAFile, client.SettingTLSCertFile, client.SettingTLSKeyFile, client.SettingTLSServerName,
		client.SettingAPIKeyFile}
	flagenv.BindEnv(fs, names...)
	flagenv.Defer(fs, names...)
}

// Connection resolves the connection over the lower layers once
// flagenv.Resolve has read the flags, and checks it: every problem, each a
// *flagenv.Problem naming its setting, including the TLS and key files
// that do not load.
func (f *Flags) Connection(getenv func(string) string) (client.Connection, []error) {
	ours := f.set
	ours.APIKey = getenv(EnvAPIKey)
	var problems []error
	refuse := func(name string, err error) {
		problems = append(problems, &flagenv.Problem{Flag: name, Env: flagenv.EnvName(name), Rule: err.Error()})
	}
	if ours.APIKey != "" && ours.APIKeyFile != "" {
		refuse(client.SettingAPIKeyFile, errors.New("set either "+EnvAPIKey+" or the file, not both"))
	}
	theirs, err := client.LoadTemporalConfig(f.profile, getenv)
	if err != nil {
		refuse(client.SettingProfile, err)
	}
	conn := ours.Over(theirs.Over(Default))
	for _, p := range conn.Check() {
		refuse(p.Setting, p.Err)
	}
	return conn, problems
}
