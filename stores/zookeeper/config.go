package zookeeper

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// DefaultMaxValueSize stays under ZooKeeper's default jute.maxbuffer
// (0xfffff bytes for a whole packet) with room for the path and ACL. A
// request over the server's limit makes it drop the connection, which would
// look Unknown forever, so the store refuses it before sending.
const DefaultMaxValueSize = 1_000_000

// Config says how to reach the ensemble and where the store lives.
type Config struct {
	// Servers are host:port addresses of the ensemble.
	Servers []string
	// Root is the absolute path under which every cluster lives.
	Root string
	// SessionTimeout is the session timeout asked of the server.
	SessionTimeout time.Duration
	// DigestUser and DigestPassword, when set, authenticate the session and
	// restrict every node the store creates to that identity. The password
	// never prints (stores.Secret), so a Config can be logged whole.
	DigestUser     string
	DigestPassword stores.Secret
	// MaxValueSize bounds an encoded reference; 0 means DefaultMaxValueSize.
	MaxValueSize int
}

// Validate checks the configuration before anything connects. It reports
// every problem at once: errors.Join of *stores.InvalidError, each naming
// its field (servers, root, session timeout, digest, digest user, max
// value size).
func (c Config) Validate() error {
	var errs []error
	invalid := func(field, format string, args ...any) {
		errs = append(errs, &stores.InvalidError{Field: field, Rule: fmt.Sprintf(format, args...)})
	}
	if len(c.Servers) == 0 {
		invalid("servers", "at least one host:port is required")
	}
	for _, s := range c.Servers {
		if host, port, ok := strings.Cut(s, ":"); !ok || host == "" || port == "" {
			invalid("servers", "%q is not host:port", s)
		}
	}
	if err := validateRoot(c.Root); err != nil {
		errs = append(errs, err)
	}
	if c.SessionTimeout < time.Second {
		invalid("session timeout", "must be at least 1s, got %s", c.SessionTimeout)
	}
	if (c.DigestUser == "") != (c.DigestPassword == "") {
		invalid("digest", "user and password must be set together")
	}
	if strings.Contains(c.DigestUser, ":") {
		invalid("digest user", "must not contain ':'")
	}
	if c.MaxValueSize < 0 {
		invalid("max value size", "must not be negative")
	}
	return errors.Join(errs...)
}

// validateRoot accepts an absolute path of plain segments, no trailing slash.
func validateRoot(root string) error {
	rule := func(r string) error { return &stores.InvalidError{Field: "root", Rule: fmt.Sprintf("%q: %s", root, r)} }
	if !strings.HasPrefix(root, "/") || root == "/" || strings.HasSuffix(root, "/") {
		return rule("must be an absolute path like /flink, without a trailing slash")
	}
	for _, seg := range strings.Split(root[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return rule("must not contain empty, '.' or '..' segments")
		}
		for _, r := range seg {
			if r < 0x21 || r == 0x7f {
				return rule("must not contain spaces or control characters")
			}
		}
	}
	return nil
}
