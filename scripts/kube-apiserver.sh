#!/usr/bin/env bash
# kube-apiserver.sh: provides a real kube-apiserver and etcd for the Kubernetes
# reference-store tests, without touching the repository's go.mod.
#
# kube-apiserver is not packaged by Debian, so it is built from the module proxy
# (k8s.io/kubernetes) in a throwaway module outside the repo. The kubernetes
# go.mod replaces its staging modules with ./staging/... paths that do not exist
# in the module zip, so every one of them is replaced here by the published
# module of the same path at the matching v0.x version.
#
# Idempotent: a cached binary is reused. Concurrent runs (CI's, and every test
# binary's through internal/testenv/servers/kubetest) serialize on one lock file, so that one
# build runs and the others wait for it instead of compiling ~2,000 packages
# each on 2 cores. Prints the two binary paths on the last two lines as
# KUBE_APISERVER=... and ETCD=... so callers can parse them.
#
# Environment:
#   FINALIZER_CACHE   cache root (default $HOME/.cache/checkpoint-finalizer)
#   KUBE_VERSION      kubernetes version (default v1.37.2)
#   ETCD_VERSION      etcd version built when /usr/bin/etcd is absent (default v3.7.3)
#   ETCD_SOURCE       "apt" (default: try apt first, fall back to building) or "build"
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-v3.7.3}"
ETCD_SOURCE="${ETCD_SOURCE:-apt}"
CACHE="${FINALIZER_CACHE:-$HOME/.cache/checkpoint-finalizer}"
STAGING_VERSION="v0.${KUBE_VERSION#v1.}"

APISERVER_DIR="$CACHE/kube-apiserver/$KUBE_VERSION"
APISERVER_BIN="$APISERVER_DIR/kube-apiserver"
LOCK="$CACHE/kube-apiserver/$KUBE_VERSION.lock"
ETCD_DIR="$CACHE/etcd/$ETCD_VERSION"
ETCD_BUILT_BIN="$ETCD_DIR/etcd"

log() { printf '[kube-apiserver.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Work directories go when the script exits, however it exits.
CLEANUP=()
trap 'rm -rf "${CLEANUP[@]}"' EXIT

# Writes into a temp file and renames so a killed build never leaves a
# half-written binary that a later run would take for a cached one.
build_apiserver() {
  if [[ -x "$APISERVER_BIN" ]]; then
    log "kube-apiserver $KUBE_VERSION cached at $APISERVER_BIN"
    return
  fi
  local start work gomod
  start=$(date +%s)
  mkdir -p "$APISERVER_DIR"
  work=$(mktemp -d "${TMPDIR:-/tmp}/kube-apiserver-build.XXXXXX")
  CLEANUP+=("$work")
  log "building kube-apiserver $KUBE_VERSION in $work (cold: ~18-20 min on 2 cores)"

  log "fetching k8s.io/kubernetes@$KUBE_VERSION go.mod"
  gomod=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
  [[ -f "$gomod" ]] || { log "could not locate go.mod of k8s.io/kubernetes@$KUBE_VERSION"; exit 1; }

  # Staging modules are the ones kubernetes replaces with ./staging/src/... paths.
  local staging
  staging=$(sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/.*#\1#p' "$gomod" | sort -u)
  [[ -n "$staging" ]] || { log "no staging replaces found in $gomod"; exit 1; }
  log "replacing $(wc -l <<<"$staging") staging modules with $STAGING_VERSION"

  {
    echo "module kube-apiserver-build"
    echo
    echo "go $(go env GOVERSION | sed 's/^go//')"
    echo
    echo "require k8s.io/kubernetes $KUBE_VERSION"
    echo
    echo "replace ("
    while read -r m; do echo "	$m => $m $STAGING_VERSION"; done <<<"$staging"
    echo ")"
  } >"$work/go.mod"
  cat >"$work/tools.go" <<GO
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO

  log "resolving modules (go mod tidy)"
  (cd "$work" && go mod tidy)
  log "compiling kube-apiserver (this is the long part)"
  (cd "$work" && go build -trimpath -ldflags='-s -w' -o "$APISERVER_BIN.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
  mv "$APISERVER_BIN.tmp" "$APISERVER_BIN"
  log "kube-apiserver built in $(( $(date +%s) - start ))s: $APISERVER_BIN ($(du -h "$APISERVER_BIN" | cut -f1))"
}

build_etcd() {
  local start work
  start=$(date +%s)
  mkdir -p "$ETCD_DIR"
  work=$(mktemp -d "${TMPDIR:-/tmp}/etcd-build.XXXXXX")
  CLEANUP+=("$work")
  log "building etcd $ETCD_VERSION in $work"
  printf 'module etcd-build\n\ngo %s\n' "$(go env GOVERSION | sed 's/^go//')" >"$work/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' >"$work/tools.go"
  (cd "$work" && go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" && go mod tidy) >&2
  (cd "$work" && go build -trimpath -ldflags='-s -w' -o "$ETCD_BUILT_BIN.tmp" go.etcd.io/etcd/server/v3)
  mv "$ETCD_BUILT_BIN.tmp" "$ETCD_BUILT_BIN"
  log "etcd built in $(( $(date +%s) - start ))s: $ETCD_BUILT_BIN"
}

# Sets etcd_bin to a usable etcd binary. Not run in $(...): a subshell
# would not clean up its work directory on exit.
ensure_etcd() {
  if [[ "$ETCD_SOURCE" != build && -x /usr/bin/etcd ]]; then
    etcd_bin=/usr/bin/etcd; return
  fi
  if [[ -x "$ETCD_BUILT_BIN" ]]; then
    log "etcd $ETCD_VERSION cached at $ETCD_BUILT_BIN"
    etcd_bin=$ETCD_BUILT_BIN; return
  fi
  if [[ "$ETCD_SOURCE" != build && "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
    local start; start=$(date +%s)
    log "installing Debian etcd-server via apt-get"
    if (apt-get update -qq >&2 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends etcd-server >&2) &&
       [[ -x /usr/bin/etcd ]]; then
      log "etcd-server installed in $(( $(date +%s) - start ))s"
      etcd_bin=/usr/bin/etcd; return
    fi
    log "apt-get install etcd-server failed; building etcd instead"
  fi
  build_etcd
  etcd_bin=$ETCD_BUILT_BIN
}

mkdir -p "$APISERVER_DIR"
exec 9>"$LOCK"
if ! flock -n 9; then
  log "waiting for the install lock $LOCK (another install is running)"
  flock 9
fi
etcd_bin=
ensure_etcd
build_apiserver
echo "KUBE_APISERVER=$APISERVER_BIN"
echo "ETCD=$etcd_bin"
