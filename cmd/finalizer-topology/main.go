// Command finalizer-topology runs the production topology on this machine,
// natively and on loopback (tools/topology): a private PostgreSQL 15
// cluster, the Temporal server on it with SQL advanced visibility, its Web
// UI server, a 3-node ZooKeeper ensemble, finalizer-worker processes on one
// task queue and the finalizer CLI. scripts/topology.sh wraps it.
//
//	finalizer-topology up [-dir finalizer-data/topology] [-workers 2] [-retain 2] [-worker-binary PATH]
//	finalizer-topology upgrade [-dir ...] [-worker-binary PATH]
//	finalizer-topology status [-dir ...]
//	finalizer-topology down [-dir ...]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/version"
	"github.com/checkpoint-finalizer/finalizer/tools/topology"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: finalizer-topology up|upgrade|status|down [-dir finalizer-data/topology] [up: -workers 2 -retain 2] [up, upgrade: -worker-binary PATH]")
}

func run(args []string) int {
	if len(args) == 0 {
		usage()
		return 2
	}
	if version.Requested(args) {
		if err := version.Print(os.Stdout, "finalizer-topology"); err != nil {
			return 1
		}
		return 0
	}
	cmd := args[0]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	dir := fs.String("dir", "finalizer-data/topology", "state directory (data, logs, pid files, topology.json)")
	workers := fs.Int("workers", 2, "finalizer-worker processes (up)")
	retain := fs.Int("retain", 2, "references kept per job (the workers' -retain; up)")
	workerBinary := fs.String("worker-binary", "", "finalizer-worker binary the workers run (up, upgrade; default: this module's build)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cmd {
	case "up":
		start := time.Now()
		tp, err := topology.Up(ctx, topology.Options{Dir: *dir, Workers: *workers, Retain: *retain, WorkerBinary: *workerBinary, Progress: os.Stderr})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "topology: up in %s\n", time.Since(start).Round(time.Second))
		fmt.Print(tp.Status())
		return 0
	case "upgrade":
		tp, err := topology.Load(*dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "no topology in %s: %v\n", *dir, err)
			return 1
		}
		if _, err := tp.Upgrade(ctx, *workerBinary, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Print(tp.Status())
		return 0
	case "status", "down":
		tp, err := topology.Load(*dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "no topology in %s: %v\n", *dir, err)
			return 1
		}
		if cmd == "status" {
			fmt.Print(tp.Status())
			return 0
		}
		if err := tp.Down(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("topology in %s stopped (data and logs kept there)\n", tp.Dir)
		return 0
	default:
		usage()
		return 2
	}
}
