#!/usr/bin/env bash
# temporal-server.sh: installs the Temporal server (the same version the
# docker-compose.yml image pins) and its SQL schema tool, both built from the
# go.temporal.io/server module, into a cache folder outside the repo, so they
# never enter the module's dependencies. The production topology
# (scripts/topology.sh, tools/topology) runs them on PostgreSQL.
# Cold it compiles ~700 packages beyond those the Temporal CLI shares with it
# (492 s on 2 cores after scripts/temporal-cli.sh, measured 2026-12-01;
# docs/operations.md, "Running in production").
#
# Idempotent: cached binaries that answer are reused. Concurrent runs (this
# script, or tools/topology.EnsureServer from test binaries) serialize on
# the same lock file. The binaries are built into a staging folder and
# renamed into place, so a killed build never leaves a half-written binary
# behind. Prints the folder holding both binaries as its last line:
#   <dir>/temporal-server      (`temporal-server --root R --config C --env E start`)
#   <dir>/temporal-sql-tool    (create-database, setup-schema, update-schema;
#                               the schemas are embedded: --schema-name
#                               postgresql/v12/temporal, .../visibility)
#
# Environment:
#   FINALIZER_CACHE   cache root (default $HOME/.cache/checkpoint-finalizer)
set -euo pipefail

VERSION=v1.29.1
MODULE="go.temporal.io/server"
PKGS=("$MODULE/cmd/server@$VERSION" "$MODULE/cmd/tools/sql@$VERSION")
CACHE="${FINALIZER_CACHE:-$HOME/.cache/checkpoint-finalizer}"
DIR="$CACHE/temporal-server/$VERSION"
SERVER="$DIR/temporal-server"
SQLTOOL="$DIR/temporal-sql-tool"
LOCK="$CACHE/temporal-server/$VERSION.lock"

log() { printf '[temporal-server.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

usable() {
  [[ -x "$SERVER" && -x "$SQLTOOL" ]] &&
    "$SERVER" --version >/dev/null 2>&1 &&
    "$SQLTOOL" --help >/dev/null 2>&1
}

# Another `go install` of the same packages (started by hand) may be
# compiling them right now: wait for it rather than compile twice on 2 cores.
wait_foreign_install() {
  local waited=0
  while pgrep -f "cmd/server@$VERSION" >/dev/null; do
    if (( waited % 30 == 0 )); then
      log "another go install of $MODULE@$VERSION is running; waiting for it (${waited}s so far)"
    fi
    sleep 5
    waited=$((waited + 5))
  done
}

if usable; then
  log "temporal server $VERSION cached"
  echo "$DIR"
  exit 0
fi

mkdir -p "$DIR"
exec 9>"$LOCK"
if ! flock -n 9; then
  log "waiting for the install lock $LOCK (another install is running)"
  flock 9
fi
wait_foreign_install
if usable; then
  log "temporal server $VERSION installed by another process"
  echo "$DIR"
  exit 0
fi

start=$(date +%s)
staging=$(mktemp -d "$DIR/.staging.XXXXXX")
trap 'rm -rf "$staging"' EXIT
log "installing ${PKGS[*]}; one dot per 5 compiled packages"

progress() {
  local line downloads=0 packages=0
  while IFS= read -r line; do
    case "$line" in
      "go: downloading "*)
        downloads=$((downloads + 1))
        (( downloads % 25 == 0 )) && log "$downloads modules downloaded"
        ;;
      # Package paths have no spaces; anything else is a message or an error.
      *" "*) printf '\n%s\n' "$line" >&2 ;;
      *)
        packages=$((packages + 1))
        (( packages % 5 == 0 )) && printf '.' >&2
        (( packages % 250 == 0 )) && printf ' %d packages, %ds\n' "$packages" $(( $(date +%s) - start )) >&2
        ;;
    esac
  done
  printf '\n' >&2
  log "$downloads modules downloaded, $packages packages compiled"
}
# GOFLAGS is cleared because a -mod setting inherited from a module build is
# refused by `go install pkg@version`; outside any module (cd "$DIR").
set +e
(cd "$DIR" && GOFLAGS= GOBIN="$staging" go install -v -ldflags='-s -w' "${PKGS[@]}" 2>&1) | progress
status=${PIPESTATUS[0]}
set -e
if (( status != 0 )); then
  log "go install failed (exit $status)"
  exit "$status"
fi

mv "$staging/sql" "$SQLTOOL"
mv "$staging/server" "$SERVER"
if ! usable; then
  log "installed binaries in $DIR do not answer"
  exit 1
fi
log "temporal server $VERSION installed in $(( $(date +%s) - start ))s: $DIR ($(du -ch "$SERVER" "$SQLTOOL" | tail -1 | cut -f1))"
echo "$DIR"
