package zookeeper

import (
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
	// restrict every node the store creates to that identity.
	DigestUser     string
	DigestPassword string
	// MaxValueSize bounds an encoded reference; 0 means DefaultMaxValueSize.
	MaxValueSize int
}

// Validate checks the configuration before anything connects.
func (c Config) Validate() error {
	if len(c.Servers) == 0 {
		return &stores.InvalidError{Field: "servers", Rule: "at least one host:port is required"}
	}
	for _, s := range c.Servers {
		if host, port, ok := strings.Cut(s, ":"); !ok || host == "" || port == "" {
			return &stores.InvalidError{Field: "servers", Rule: fmt.Sprintf("%q is not host:port", s)}
		}
	}
	if err := validateRoot(c.Root); err != nil {
		return err
	}
	if c.SessionTimeout < time.Second {
		return &stores.InvalidError{Field: "session timeout", Rule: fmt.Sprintf("must be at least 1s, got %s", c.SessionTimeout)}
	}
	if (c.DigestUser == "") != (c.DigestPassword == "") {
		return &stores.InvalidError{Field: "digest", Rule: "user and password must be set together"}
	}
	if strings.Contains(c.DigestUser, ":") {
		return &stores.InvalidError{Field: "digest user", Rule: "must not contain ':'"}
	}
	if c.MaxValueSize < 0 {
		return &stores.InvalidError{Field: "max value size", Rule: "must not be negative"}
	}
	return nil
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
