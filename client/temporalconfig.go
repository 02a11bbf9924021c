package client

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"go.temporal.io/sdk/contrib/envconfig"
)

// LoadTemporalConfig reads Temporal's own client configuration, as the
// Temporal CLI and the SDK samples do (the SDK's contrib/envconfig): a
// profile of temporal.toml (the file TEMPORAL_CONFIG_FILE names, else
// $HOME/.config/temporalio/temporal.toml; the profile named by profile,
// else by TEMPORAL_PROFILE, else "default") with the TEMPORAL_* variables
// (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS,
// TEMPORAL_TLS_*_PATH, TEMPORAL_TLS_SERVER_NAME) over it. getenv stands
// for the environment; an empty value counts as unset.
//
// It returns only what that configuration sets. A missing file is no
// error; a file that does not parse, a named profile it lacks, or a
// setting the finalizer does not take (PEM data instead of a path, gRPC
// metadata, authority, disabled host verification) is, naming the file
// and the profile.
func LoadTemporalConfig(profile string, getenv func(string) string) (Connection, error) {
	env := envLookup(getenv)
	file := getenv("TEMPORAL_CONFIG_FILE")
	if file == "" {
		file = envconfig.DefaultConfigFilePath()
	}
	from := "--" + SettingProfile
	if profile == "" {
		profile, from = getenv("TEMPORAL_PROFILE"), "TEMPORAL_PROFILE"
	}
	named := profile
	if profile == "" {
		// The default profile may be absent; one named must be there.
		profile, from = envconfig.DefaultConfigFileProfile, "the default"
	}
	where := fmt.Sprintf("temporal.toml %s, profile %q (%s)", file, profile, from)
	p, err := envconfig.LoadClientConfigProfile(envconfig.LoadClientConfigProfileOptions{
		ConfigFilePath:    file,
		ConfigFileProfile: named,
		EnvLookup:         env,
	})
	if pe, ok := errors.AsType[toml.ParseError](err); ok {
		// The parser's message quotes what it found, which may be the
		// start of an API key: only the place is shown.
		at := fmt.Sprintf("line %d", pe.Position.Line)
		if pe.LastKey != "" {
			at += fmt.Sprintf(" (after key %q)", pe.LastKey)
		}
		return Connection{}, fmt.Errorf("%s: not valid TOML at %s", where, at)
	}
	if err != nil {
		return Connection{}, fmt.Errorf("%s: %w", where, err)
	}
	var unsupported []string
	c := Connection{Address: p.Address, Namespace: p.Namespace, APIKey: Secret(p.APIKey)}
	if t := p.TLS; t != nil {
		switch {
		case t.Disabled && p.APIKey != "":
			unsupported = append(unsupported, "tls disabled with an API key (the finalizer never sends a key in clear)")
		case !t.Disabled:
			c.TLS = TLSConfig{Enabled: true, CAFile: t.ServerCACertPath, CertFile: t.ClientCertPath,
				KeyFile: t.ClientKeyPath, ServerName: t.ServerName}
		}
		for name, set := range map[string]bool{
			"client_cert_data (TEMPORAL_TLS_CLIENT_CERT_DATA)":       len(t.ClientCertData) > 0,
			"client_key_data (TEMPORAL_TLS_CLIENT_KEY_DATA)":         len(t.ClientKeyData) > 0,
			"server_ca_cert_data (TEMPORAL_TLS_SERVER_CA_CERT_DATA)": len(t.ServerCACertData) > 0,
			"disable_host_verification":                              t.DisableHostVerification,
		} {
			if set {
				unsupported = append(unsupported, "tls "+name)
			}
		}
	}
	if len(p.GRPCMeta) > 0 {
		unsupported = append(unsupported, "grpc_meta (TEMPORAL_GRPC_META_*)")
	}
	if p.Authority != "" {
		unsupported = append(unsupported, "authority (TEMPORAL_CLIENT_AUTHORITY)")
	}
	// A codec serves the Web UI and the CLI's display of payloads; the
	// finalizer's own payloads are plain JSON, so a profile's codec is
	// left to them.
	if len(unsupported) > 0 {
		// Sorted: the map's order would change the message from run to run.
		slices.Sort(unsupported)
		return Connection{}, fmt.Errorf("%s: not supported by the finalizer: %s (use the file paths: %s)",
			where, strings.Join(unsupported, "; "), "client_cert_path, client_key_path, server_ca_cert_path")
	}
	return c, nil
}

// pick is high unless it is empty.
func pick[T ~string](high, low T) T {
	if high != "" {
		return high
	}
	return low
}

// Over returns base with the fields c sets replacing base's: c is the
// higher layer. An API key file in c replaces base's key too.
func (c Connection) Over(base Connection) Connection {

	out := Connection{
		Address:   pick(c.Address, base.Address),
		Namespace: pick(c.Namespace, base.Namespace),
		TLS: TLSConfig{
			Enabled:    c.TLS.Enabled || base.TLS.Enabled,
			CAFile:     pick(c.TLS.CAFile, base.TLS.CAFile),
			CertFile:   pick(c.TLS.CertFile, base.TLS.CertFile),
			KeyFile:    pick(c.TLS.KeyFile, base.TLS.KeyFile),
			ServerName: pick(c.TLS.ServerName, base.TLS.ServerName),
		},
		APIKey:     pick(c.APIKey, base.APIKey),
		APIKeyFile: pick(c.APIKeyFile, base.APIKeyFile),
	}
	if c.APIKeyFile != "" && c.APIKey == "" {
		out.APIKey = ""
	}
	if c.APIKey != "" && c.APIKeyFile == "" {
		out.APIKeyFile = ""
	}
	return out
}

// envLookup is envconfig's view of getenv.
type envLookup func(string) string

func (e envLookup) LookupEnv(k string) (string, bool) {
	v := e(k)
	return v, v != ""
}

// Environ lists the process's variable names with getenv's values:
// envconfig scans it for TEMPORAL_GRPC_META_*.
func (e envLookup) Environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if v := e(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}

var _ envconfig.EnvLookup = envLookup(nil)
