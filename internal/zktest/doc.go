// Package zktest starts real ZooKeeper servers for tests: the Debian
// package's jar, installed with apt-get when missing, on free loopback
// ports, with data directories and logs of their own. StartServer starts
// one standalone server; StartEnsemble starts a replicated ensemble whose
// nodes can be killed with SIGKILL and started again, and whose leader is
// found with the srvr four-letter word. Logs are kept (and their path
// printed) when the caller reports a failure.
package zktest
