// Package connflags is the Temporal connection as flags: one definition
// that the worker and the finalizer command register, so one environment
// configures both. A setting comes from, highest first: its flag, its
// FINALIZER_ variable (--temporal-address: FINALIZER_TEMPORAL_ADDRESS),
// Temporal's own TEMPORAL_* variable, the temporal.toml profile, Default.
package connflags

import (
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

// temporal is where Temporal's own configuration sets a setting, the
// layers under its FINALIZER_ variable.
type temporal struct{ env, profile string }

// temporalSources: the API key file has none (Temporal's layers set a
// key, which the file replaces).
var temporalSources = map[string]temporal{
	client.SettingProfile:       {env: "TEMPORAL_PROFILE"},
	client.SettingAddress:       {"TEMPORAL_ADDRESS", "address"},
	client.SettingNamespace:     {"TEMPORAL_NAMESPACE", "namespace"},
	client.SettingTLS:           {"TEMPORAL_TLS", "[tls]"},
	client.SettingTLSCAFile:     {"TEMPORAL_TLS_SERVER_CA_CERT_PATH", "tls.server_ca_cert_path"},
	client.SettingTLSCertFile:   {"TEMPORAL_TLS_CLIENT_CERT_PATH", "tls.client_cert_path"},
	client.SettingTLSKeyFile:    {"TEMPORAL_TLS_CLIENT_KEY_PATH", "tls.client_key_path"},
	client.SettingTLSServerName: {"TEMPORAL_TLS_SERVER_NAME", "tls.server_name"},
}

// Under names where Temporal's own configuration sets a setting, for a
// problem to name: "TEMPORAL_ADDRESS / profile address"; "" if nowhere.
func Under(setting string) string {
	t := temporalSources[setting]
	if t.profile == "" {
		return t.env
	}
	return t.env + " / profile " + t.profile
}

// Register adds the connection's flags to fs, backed by their variables
// and read by flagenv.Resolve.
func (f *Flags) Register(fs *pflag.FlagSet) {
	under := func(usage, name string) string {
		t := temporalSources[name]
		layers := "$" + t.env + ", else default"
		if t.profile != "" {
			layers = "$" + t.env + ", profile " + t.profile
		}
		return usage + " ($" + flagenv.EnvName(name) + "; under it " + layers + ")"
	}
	fs.StringVar(&f.profile, client.SettingProfile, "",
		under("`profile` of Temporal's temporal.toml (the file $TEMPORAL_CONFIG_FILE names, else ~/.config/temporalio/temporal.toml)", client.SettingProfile))
	fs.StringVar(&f.set.Address, client.SettingAddress, "",
		under("Temporal frontend `host:port` (default "+Default.Address+")", client.SettingAddress))
	fs.StringVar(&f.set.Namespace, client.SettingNamespace, "",
		under("Temporal `namespace` (default \""+Default.Namespace+"\")", client.SettingNamespace))
	fs.BoolVar(&f.set.TLS.Enabled, client.SettingTLS, false,
		under("TLS with the system roots; implied by any --temporal-tls-* flag", client.SettingTLS))
	fs.StringVar(&f.set.TLS.CAFile, client.SettingTLSCAFile, "",
		under("PEM CA bundle `file` to verify Temporal's certificate (default: system roots)", client.SettingTLSCAFile))
	fs.StringVar(&f.set.TLS.CertFile, client.SettingTLSCertFile, "",
		under("PEM client certificate `file` for mTLS, with --temporal-tls-key-file", client.SettingTLSCertFile))
	fs.StringVar(&f.set.TLS.KeyFile, client.SettingTLSKeyFile, "",
		under("PEM client key `file` for mTLS, with --temporal-tls-cert-file", client.SettingTLSKeyFile))
	fs.StringVar(&f.set.TLS.ServerName, client.SettingTLSServerName, "",
		under("`name` to verify Temporal's certificate against", client.SettingTLSServerName))
	fs.StringVar(&f.set.APIKeyFile, client.SettingAPIKeyFile, "",
		"`file` holding the Temporal API key; or the key itself in $"+EnvAPIKey+
			" ($"+flagenv.EnvName(client.SettingAPIKeyFile)+"; under it $TEMPORAL_API_KEY, profile api_key)")
	names := []string{client.SettingProfile, client.SettingAddress, client.SettingNamespace, client.SettingTLS,
		client.SettingTLSCAFile, client.SettingTLSCertFile, client.SettingTLSKeyFile, client.SettingTLSServerName,
		client.SettingAPIKeyFile}
	flagenv.BindEnv(fs, names...)
	for name := range temporalSources {
		flagenv.Under(fs, name, Under(name))
	}
	flagenv.Defer(fs, names...)
}

// Connection resolves the connection over the lower layers once
// flagenv.Resolve has read the flags; the error is a profile that does not
// load. Check the result (client.Connection.Check, each named by Problem)
// before dialing.
func (f *Flags) Connection(getenv func(string) string) (client.Connection, error) {
	ours := f.set
	ours.APIKey = client.Secret(getenv(EnvAPIKey))
	theirs, err := client.LoadTemporalConfig(f.profile, getenv)
	if err != nil {
		return client.Connection{}, Problem(client.SettingProfile, err)
	}
	return ours.Over(theirs.Over(Default)), nil
}

// Problem is err of a connection setting, named by its flag, its variable
// and Temporal's layers under them.
func Problem(setting string, err error) *flagenv.Problem {
	return &flagenv.Problem{Flag: setting, Env: flagenv.EnvName(setting), Under: Under(setting), Rule: err.Error()}
}
