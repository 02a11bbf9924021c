#!/usr/bin/env bash
# temporal-server.sh [server|ui]: installs Temporal's own server binaries,
# built from the module proxy, into a cache folder outside the repo keyed by
# version, so they never enter the module's dependencies:
#
#   server (the default): the Temporal server (the same version the
#     docker-compose.yml image pins) and its SQL schema tool, from the
#     go.temporal.io/server module. The production topology
#     (scripts/topology.sh, tools/topology) runs them on PostgreSQL.
#     Cold it compiles ~700 packages beyond those the Temporal CLI shares
#     with it (492 s on 2 cores after scripts/temporal-cli.sh, measured
#     2026-12-01; docs/operations.md, "Running in production").
#     <dir>/temporal-server      (`temporal-server --root R --config C --env E start`)
#     <dir>/temporal-sql-tool    (create-database, setup-schema, update-schema;
#                                 the schemas are embedded: --schema-name
#                                 postgresql/v12/temporal, .../visibility)
#   ui: the Temporal Web UI server (github.com/temporalio/ui-server/v2, the
#     version the Temporal CLI of scripts/temporal-cli.sh embeds and the
#     temporalio/ui image docker-compose.yml pins), which the production
#     topology runs beside the frontend. Its UI assets are embedded in the
#     module: no Node.js build. Cold it took 33 s on 2 cores after the CLI
#     and the server (155 packages left), 75 s with an empty Go build cache
#     (414 packages), measured 2026-12-03.
#     <dir>/temporal-ui-server   (`temporal-ui-server --root R --config C --env E start`)
#
# Idempotent: cached binaries that answer are reused. Concurrent runs (this
# script, or internal/testenv/servers/serverbin from test binaries) serialize on the same
# lock file per target and version. The binaries are built into a staging
# folder and renamed into place, so a killed build never leaves a
# half-written binary behind. Prints the folder holding the target's
# binaries as its last line.
#
# Environment:
#   FINALIZER_CACHE   cache root (default $HOME/.cache/checkpoint-finalizer)
set -euo pipefail

CACHE="${FINALIZER_CACHE:-$HOME/.cache/checkpoint-finalizer}"
case "${1:-server}" in
  server)
    NAME=temporal-server
    VERSION=v1.29.1
    MODULE="go.temporal.io/server"
    PKGS=("$MODULE/cmd/server@$VERSION" "$MODULE/cmd/tools/sql@$VERSION")
    # What go install names each binary (its package's last element), the
    # name it is cached under, and the flag it must answer.
    BINS=("server temporal-server --version" "sql temporal-sql-tool --help")
    ;;
  ui)
    NAME=temporal-ui-server
    VERSION=v2.42.1
    MODULE="github.com/temporalio/ui-server/v2"
    PKGS=("$MODULE/cmd/server@$VERSION")
    BINS=("server temporal-ui-server --version")
    ;;
  *)
    echo "usage: $0 [server|ui]" >&2
    exit 2
    ;;
esac
DIR="$CACHE/$NAME/$VERSION"
LOCK="$CACHE/$NAME/$VERSION.lock"

log() { printf '[temporal-server.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

usable() {
  local bin built cached flag
  for bin in "${BINS[@]}"; do
    read -r built cached flag <<<"$bin"
    [[ -x "$DIR/$cached" ]] && "$DIR/$cached" "$flag" >/dev/null 2>&1 || return 1
  done
}

# Another `go install` of the same packages (started by hand) may be
# compiling them right now: wait for it rather than compile twice on 2 cores.
wait_foreign_install() {
  local waited=0
  while pgrep -f "${PKGS[0]}" >/dev/null; do
    if (( waited % 30 == 0 )); then
      log "another go install of $MODULE@$VERSION is running; waiting for it (${waited}s so far)"
    fi
    sleep 5
    waited=$((waited + 5))
  done
}

if usable; then
  log "$NAME $VERSION cached"
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
  log "$NAME $VERSION installed by another process"
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

for bin in "${BINS[@]}"; do
  read -r built cached _ <<<"$bin"
  mv "$staging/$built" "$DIR/$cached"
done
if ! usable; then
  log "installed binaries in $DIR do not answer"
  exit 1
fi
log "$NAME $VERSION installed in $(( $(date +%s) - start ))s: $DIR ($(du -sh "$DIR" | cut -f1))"
echo "$DIR"
