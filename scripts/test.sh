#!/usr/bin/env bash
# The whole test suite, as README.md states it. Test harnesses install and
# start the real servers they need (ZooKeeper from Debian, ...), on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."

unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
go test -count=1 -timeout 30m ./...
