#!/usr/bin/env bash
# temporal-cli.sh: installs the Temporal CLI (which embeds the dev server and
# Web UI) into a cache folder outside the repo, so it never enters the
# module's dependencies. Cold it compiles ~1,000 packages: ~12-18 min on 2 cores.
#
# The one installer is internal/testenv/servers/devserver's (EnsureCLI), which the tests and
# dev mode use too; this script runs it through `finalizer-dev temporal-cli`.
# Idempotent: a cached binary that answers `temporal --version` is reused;
# $TEMPORALTEST_CLI, or a `temporal` on PATH embedding server 1.29 or newer,
# saves the build. Concurrent installs serialize on one lock file, and a
# killed build never leaves a half-written binary behind. Prints the binary
# path as its last line.
#
# Environment:
#   FINALIZER_CACHE   cache root (default $HOME/.cache/checkpoint-finalizer)
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./cmd/finalizer-dev temporal-cli
