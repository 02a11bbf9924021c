#!/usr/bin/env bash
# The whole test suite, as README.md states it. Test harnesses install and
# start the real servers they need (ZooKeeper from Debian, ...), on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."

unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
# Nested modules (every go.mod below the root: deploy/helm/chart-test,
# tools/ociimage): test and release code whose dependencies (Helm's SDK,
# go-containerregistry) stay out of the finalizer module's go.mod. Each is
# vetted, staticchecked, kept tidy and tested like the main module.
mapfile -t nested < <(git ls-files '*/go.mod' | xargs -r -n1 dirname)
go vet ./...
for m in "${nested[@]}"; do (cd "$m" && go vet ./...); done
bash scripts/staticcheck.sh

# The module is tidy: every requirement used, none missing, none marked
# indirect that the code imports. go mod tidy -diff changes nothing and
# prints what it would change.
for m in . "${nested[@]}"; do
  if ! tidy=$(cd "$m" && go mod tidy -diff 2>&1); then
    echo "go mod tidy would change $m/go.mod, go.sum:"; echo "$tidy"; exit 1
  fi
done

# Heavy real servers, built once per machine and cached outside the repo,
# keyed by version (cold: ~15 min for the Temporal CLI, ~20 min for
# kube-apiserver on 2 cores, ~8 min for the Temporal server and its SQL tool
# once the CLI's packages are in the Go build cache, under a minute for the
# Web UI server; warm: instant). Done here
# first so that their progress shows; the test harnesses would build them too
# (tools/topologytest runs the server on PostgreSQL, see
# docs/operations.md, "Running in production").
bash scripts/temporal-cli.sh
bash scripts/kube-apiserver.sh
bash scripts/temporal-server.sh
bash scripts/temporal-server.sh ui

# Everything runs, nothing is skipped: `go test -short ./...` is the quick
# tier, and a test that skips here hides a real-server test, so any skip
# fails the run (a test that cannot run must fail instead).
# What tests keep for an operator or CI to look at (the Web UI test's
# screenshots): a fixed folder outside the repo, each run replacing the last.
export FINALIZER_ARTIFACTS="${FINALIZER_ARTIFACTS:-${FINALIZER_CACHE:-$HOME/.cache/checkpoint-finalizer}/artifacts}"
log=$(mktemp -d)/go-test.log
set +e
go test -count=1 -timeout 60m -v ./... > "$log" 2>&1
status=$?
# The nested modules' tests, into the same log: the summary and the
# no-skip rule below cover them too.
for m in "${nested[@]}"; do
  (cd "$m" && go test -count=1 -timeout 20m -v ./...) >> "$log" 2>&1
  s=$?
  if [ "$status" -eq 0 ]; then status=$s; fi
done
set -e
# The summary: each package's ok/FAIL line, and every failed or skipped test
# with the lines it logged.
awk '/^(ok|FAIL|panic:)/ { print; next }
     /^ *--- (FAIL|SKIP)/ { show = 1; print; next }
     /^ *--- PASS|^=== / { show = 0 }
     show && /^ / { print }' "$log"
echo "test artifacts (Web UI screenshots): $FINALIZER_ARTIFACTS"
skipped=$(grep -E '^ *--- SKIP' "$log" || true)
if [ -n "$skipped" ]; then
  echo "skipped in the full run (each must run or fail; log $log):"; echo "$skipped"
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "go test failed (exit $status; full log $log)"
  exit "$status"
fi
