// Package pluginjar checks that the Flink plugin's shaded jar keeps to
// itself: Flink puts every lib/ jar on the class path of its JobManagers,
// TaskManagers and client, and a job's class loader falls back to it (or
// asks it first, with classloader.resolve-order: parent-first), so a class,
// a service registration or a native library the jar carries under a
// library's own name would clash with the same library a job bundles.
package pluginjar
