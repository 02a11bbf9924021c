#!/usr/bin/env bash
# temporal-cli.sh: installs the Temporal CLI (which embeds the dev server and
# Web UI) into a cache folder outside the repo, so it never enters the
# module's dependencies. Cold it compiles ~1,000 packages: ~12-18 min on 2 cores.
#
# Idempotent: a cached binary that answers `temporal --version` is reused.
# Concurrent runs (this script, or internal/devserver.EnsureCLI from test
# binaries) serialize on the same lock file. The binary is built into a
# staging folder and renamed into place, so a killed build never leaves a
# half-written binary behind. Prints the binary path as its last line.
#
# Environment:
#   FINALIZER_CACHE   cache root (default $HOME/.cache/checkpoint-finalizer)
set -euo pipefail

VERSION=v1.5.1
PKG="github.com/temporalio/cli/cmd/temporal@$VERSION"
CACHE="${FINALIZER_CACHE:-$HOME/.cache/checkpoint-finalizer}"
DIR="$CACHE/temporal/$VERSION"
BIN="$DIR/temporal"
LOCK="$CACHE/temporal/$VERSION.lock"

log() { printf '[temporal-cli.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

usable() { [[ -x "$BIN" ]] && "$BIN" --version >/dev/null 2>&1; }

# Another `go install` of the same package (started by hand, or by an older
# tool that does not take the lock) may be writing into $DIR right now: wait
# for it instead of compiling the same ~1,000 packages twice on 2 cores.
wait_foreign_install() {
  local waited=0
  while pgrep -f "cli/cmd/temporal@$VERSION" >/dev/null; do
    if (( waited % 30 == 0 )); then
      log "another go install of $PKG is running; waiting for it (${waited}s so far)"
    fi
    sleep 5
    waited=$((waited + 5))
  done
}

if usable; then
  log "temporal $VERSION cached"
  echo "$BIN"
  exit 0
fi

# $TEMPORALTEST_CLI, or a `temporal` on PATH embedding server 1.29 or newer
# (what internal/devserver accepts too), saves the build.
if [[ -n "${TEMPORALTEST_CLI:-}" ]]; then
  log "using \$TEMPORALTEST_CLI=$TEMPORALTEST_CLI"
  echo "$TEMPORALTEST_CLI"
  exit 0
fi
if onpath=$(command -v temporal) && [[ "$("$onpath" --version 2>/dev/null)" =~ \(Server\ 1\.([0-9]+)\. ]] && (( BASH_REMATCH[1] >= 29 )); then
  log "using $onpath from PATH ($("$onpath" --version))"
  echo "$onpath"
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
  log "temporal $VERSION installed by another process"
  echo "$BIN"
  exit 0
fi

start=$(date +%s)
staging=$(mktemp -d "$DIR/.staging.XXXXXX")
trap 'rm -rf "$staging"' EXIT
log "installing $PKG (cold: ~12-18 min on 2 cores); one dot per 5 compiled packages"

# -v names every package as it is compiled: that is the progress. GOFLAGS is
# cleared because a -mod setting inherited from a module build is refused by
# `go install pkg@version`.
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
set +e
(cd "$DIR" && GOFLAGS= GOBIN="$staging" go install -v -ldflags='-s -w' "$PKG" 2>&1) | progress
status=${PIPESTATUS[0]}
set -e
if (( status != 0 )); then
  log "go install failed (exit $status)"
  exit "$status"
fi

mv "$staging/temporal" "$BIN"
if ! usable; then
  log "installed $BIN does not run --version"
  exit 1
fi
log "temporal $VERSION installed in $(( $(date +%s) - start ))s: $BIN ($(du -h "$BIN" | cut -f1))"
echo "$BIN"
