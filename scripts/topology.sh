#!/usr/bin/env bash
# topology.sh up|upgrade|status|down [-dir DIR] [-workers N] [-retain N] [-worker-binary PATH]
#
# The production topology on this machine, natively, on loopback: a private
# PostgreSQL 15 cluster (Debian's package, installed when missing), the
# Temporal server (scripts/temporal-server.sh, the version docker-compose.yml
# pins) on it with SQL advanced visibility, the Temporal Web UI server
# (scripts/temporal-server.sh ui) in front of it, a 3-node ZooKeeper ensemble
# (Debian's package), finalizer-worker processes on one task queue and the
# finalizer CLI. `up` prints every address and the state directory
# (default finalizer-data/topology); `upgrade` rolls the workers to this
# checkout's build one at a time; `down` stops everything `up` started.
# See docs/operations.md, "Running in production", and tools/topology.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == up ]]; then
  # Their progress shows here; cached after the first build.
  bash scripts/temporal-server.sh >/dev/null
  bash scripts/temporal-server.sh ui >/dev/null
fi
exec go run ./cmd/finalizer-topology "$@"
