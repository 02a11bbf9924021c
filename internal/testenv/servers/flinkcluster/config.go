package flinkcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Config is a Flink configuration, key to value as config.yaml has them.
type Config map[string]string

// defaults are what every process of a cluster shares, under the
// caller's keys: loopback only, small memory for a 2-core machine, and
// heartbeats short enough that a dead JobManager is noticed in seconds
// (ZooKeeper's session timeout is the caller's, with its quorum).
func defaults(dir string) Config {
	return Config{
		"jobmanager.rpc.address":          "127.0.0.1",
		"jobmanager.bind-host":            "127.0.0.1",
		"rest.address":                    "127.0.0.1",
		"rest.bind-address":               "127.0.0.1",
		"taskmanager.host":                "127.0.0.1",
		"taskmanager.bind-host":           "127.0.0.1",
		"jobmanager.memory.process.size":  "1024m",
		"taskmanager.memory.process.size": "1280m",
		// Room for a job's tasks of the old leader and of the new one
		// while the old ones are being canceled.
		"taskmanager.numberOfTaskSlots": "4",
		"heartbeat.interval":            "2000",
		"heartbeat.timeout":             "15000",
		"io.tmp.dirs":                   filepath.Join(dir, "tmp"),
	}
}

// with returns c overlaid with more.
func (c Config) with(more Config) Config {
	out := make(Config, len(c)+len(more))
	for k, v := range c {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// write writes conf/config.yaml (Flink 1.19+'s file; every value quoted,
// as YAML would read a quorum or a port range otherwise) and the log4j
// configurations: the processes' to their standard output, the client's
// to its log file (its standard output is what the caller parses).
func (c Config) write(conf string) error {
	if err := os.MkdirAll(conf, 0o755); err != nil {
		return fmt.Errorf("write flink configuration: %w", err)
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: '%s'\n", k, strings.ReplaceAll(c[k], "'", "''"))
	}
	if err := os.WriteFile(filepath.Join(conf, "config.yaml"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write flink configuration: %w", err)
	}
	for name, content := range map[string]string{"log4j.properties": log4j, "log4j-cli.properties": log4jCLI} {
		if err := os.WriteFile(filepath.Join(conf, name), []byte(content), 0o644); err != nil {
			return fmt.Errorf("write flink log configuration: %w", err)
		}
	}
	return nil
}

// log4j logs what a person reads after a failed run: Flink's INFO (leader
// changes, job transitions, checkpoints) and the plugin's, not the RPC
// and ZooKeeper clients' chatter.
const log4j = `rootLogger.level = INFO
rootLogger.appenderRef.out.ref = Out
appender.out.name = Out
appender.out.type = CONSOLE
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = %d{HH:mm:ss,SSS} %-5p %-40c{1} %m%n
logger.shaded.name = org.apache.flink.shaded
logger.shaded.level = WARN
logger.pekko.name = org.apache.pekko
logger.pekko.level = WARN
logger.zk.name = org.apache.zookeeper
logger.zk.level = WARN
logger.temporal.name = io.github.checkpointfinalizer.flink.shaded
logger.temporal.level = WARN
`

// log4jCLI appends the client's log to the file named by log.file.
const log4jCLI = `rootLogger.level = INFO
rootLogger.appenderRef.file.ref = File
appender.file.name = File
appender.file.type = File
appender.file.append = true
appender.file.fileName = ${sys:log.file}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{HH:mm:ss,SSS} %-5p %-40c{1} %m%n
logger.shaded.name = org.apache.flink.shaded
logger.shaded.level = WARN
`
