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

# Heavy real servers, built once per machine and cached outside the repo,
# keyed by version (cold: ~15 min for the Temporal CLI, ~20 min for
# kube-apiserver on 2 cores; warm: instant). Done here first so that their
# progress shows; the test harnesses would build them too.
bash scripts/temporal-cli.sh
bash scripts/kube-apiserver.sh

go test -count=1 -timeout 60m ./...
