#!/usr/bin/env bash
# staticcheck.sh: runs staticcheck on the module, installed into a cache
# folder outside the repo keyed by version, so it never enters go.mod.
#
# Environment:
#   FINALIZER_CACHE   cache root (default $HOME/.cache/checkpoint-finalizer)
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=v0.8.2
CACHE="${FINALIZER_CACHE:-$HOME/.cache/checkpoint-finalizer}"
DIR="$CACHE/staticcheck/$VERSION"
BIN="$DIR/staticcheck"

if [[ ! -x "$BIN" ]]; then
  mkdir -p "$DIR"
  # GOFLAGS cleared: a -mod setting inherited from a module build is refused
  # by `go install pkg@version`.
  GOFLAGS= GOBIN="$DIR" go install "honnef.co/go/tools/cmd/staticcheck@$VERSION"
fi
"$BIN" ./...
# The nested modules (every go.mod below the root), each from its own
# directory: staticcheck checks one module at a time.
git ls-files '*/go.mod' | xargs -r -n1 dirname | while read -r m; do
  (cd "$m" && "$BIN" ./...)
done
