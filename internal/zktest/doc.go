// Package zktest starts a real ZooKeeper server for tests: the Debian
// package's jar, installed with apt-get when missing, on a free loopback
// port, with a data directory and log of its own. The log is kept (and its
// path printed) when the caller reports a failure.
package zktest
