// Package zktest starts real ZooKeeper servers for tests: the Debian
// package's jar, installed with apt-get when missing, on free loopback
// ports, with data directories and logs of their own. StartServer starts
// one standalone server; StartEnsemble starts a replicated ensemble whose
// nodes can be killed with SIGKILL and started again, and whose leader is
// found with the srvr four-letter word. Logs are kept (and their path
// printed) when the caller reports a failure.
//
// Configure, Command, Mode, Leader and WaitServing are the ensemble's
// parts for a tool that runs the nodes its own way (tools/topology runs
// them detached, outliving it): the one place that writes ZooKeeper's
// configuration and command line. Processes run under internal/testenv/servers/proc.
package zktest
