#!/usr/bin/env bash
# release.sh: builds a release's artifacts for a tag, without a container
# engine, into dist/<tag>/:
#
#   finalizer-<tag>-<os>-<arch>.tar.gz          finalizer-worker and finalizer (static)
#   finalizer-worker-image-<tag>.oci.tar         the image, every platform under one OCI image
#                                                index (OCI archive, tools/ociimage); its CA bundle
#                                                and zone files come from the Debian packages
#                                                tools/ociimage/base-packages.txt pins (fetched once
#                                                with apt-get into $FINALIZER_CACHE/debian)
#   finalizer-<tag>.cdx.json                     the binaries' SBOM (CycloneDX 1.5, written with
#                                                cyclonedx-go: every module each binary links, as
#                                                `go version -m` reads it)
#   finalizer-<version>.tgz                      the Helm chart (deploy/helm/finalizer)
#   finalizer-flink-<version>.jar                the Flink plugin (shaded), when flink/pom.xml exists
#   SHA256SUMS                                   sha256 of every file above
#
#   bash scripts/release.sh v1.2.0
#
# The binaries say the tag and the commit (`--version`); the image's tag and its
# org.opencontainers.image.version label, and the chart's version and
# appVersion, are the tag without its "v" (Helm versions are SemVer), so the
# chart names exactly this release's image. Timestamps come from the
# commit (SOURCE_DATE_EPOCH): building the same commit again gives the same
# image digest and the same checksums.
#
# Push the image, every platform under one tag, without an engine:
#   skopeo copy --all oci-archive:finalizer-worker-image-v1.2.0.oci.tar:1.2.0 \
#     docker://registry.example.com/checkpoint-finalizer/worker:1.2.0
#
# Environment:
#   PLATFORMS        GOOS/GOARCH list (default "linux/amd64 linux/arm64")
#   DIST             output root, absolute or relative to the repository
#                    (default dist, ignored by git)
#   ALLOW_DIRTY=1    build from a tree with uncommitted changes (not a release)
#   FINALIZER_CACHE  cache root (default $HOME/.cache/checkpoint-finalizer);
#                    Maven's repository is $FINALIZER_CACHE/maven/repository, as the
#                    flink tests keep it
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

TAG="${1:-}"
if [[ ! "$TAG" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "usage: scripts/release.sh vMAJOR.MINOR.PATCH[-PRERELEASE]" >&2; exit 2
fi
VERSION="${TAG#v}"
PLATFORMS="${PLATFORMS:-linux/amd64 linux/arm64}"
CACHE="${FINALIZER_CACHE:-$HOME/.cache/checkpoint-finalizer}"
DIST="${DIST:-dist}"
case "$DIST" in
  /*) OUT="$DIST/$TAG" ;;
  *) OUT="$ROOT/$DIST/$TAG" ;;
esac

log() { printf '[release.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# A release is a commit: the revision label and the binaries' build info
# must name what was built.
if [[ -n "$(git status --porcelain)" && "${ALLOW_DIRTY:-}" != 1 ]]; then
  echo "release.sh: the tree has uncommitted changes (ALLOW_DIRTY=1 to build anyway)" >&2; exit 1
fi
REVISION=$(git rev-parse HEAD)
if tagged=$(git rev-parse -q --verify "refs/tags/$TAG^{commit}"); then
  if [[ "$tagged" != "$REVISION" ]]; then
    echo "release.sh: tag $TAG is $tagged, not HEAD $REVISION" >&2; exit 1
  fi
else
  log "tag $TAG does not exist yet: building HEAD $REVISION for it"
fi
export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
rm -rf "$OUT"
mkdir -p "$OUT"

# A tar.gz whose bytes depend only on its files: sorted names, the
# commit's time, root owner, no gzip timestamp.
reproducible_tgz() {
  local dest="$1" dir="$2"
  tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
    -C "$dir" -cf - . | gzip -n -9 > "$dest"
}

# The commit too: the go command stamps none where GOFLAGS says
# -buildvcs=false, and a build of a dirty tree says so.
STAMP="$REVISION"
if [[ -n "$(git status --porcelain)" ]]; then STAMP="$REVISION-dirty"; fi
LDFLAGS="-s -w -X github.com/checkpoint-finalizer/finalizer/internal/version.version=$TAG -X github.com/checkpoint-finalizer/finalizer/internal/version.revision=$STAMP"
for platform in $PLATFORMS; do
  os="${platform%/*}" arch="${platform#*/}"
  bin="$WORK/bin/$os-$arch"
  mkdir -p "$bin"
  log "binaries for $os/$arch"
  # Static (bbolt, go-zookeeper and client-go are pure Go): they run on
  # the image's empty base and on any Linux.
  for pkg in ./worker/cmd/finalizer-worker ./client/cmd/finalizer; do
    CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" GOFLAGS= \
      go build -trimpath -ldflags "$LDFLAGS" -o "$bin/$(basename "$pkg")" "$pkg"
  done
  cp LICENSE "$bin/"
  reproducible_tgz "$OUT/finalizer-$TAG-$os-$arch.tar.gz" "$bin"
done

log "image for $PLATFORMS, and the SBOM"
(cd tools/ociimage && GOFLAGS= go run ./cmd/finalizer-image \
  -bin "$WORK/bin" -platforms "$PLATFORMS" \
  -base-packages base-packages.txt -deb-cache "$CACHE/debian" \
  -version "$VERSION" -revision "$REVISION" -tag "$VERSION" -sbom-version "$TAG" \
  -o "$OUT/finalizer-worker-image-$TAG.oci.tar" -sbom "$OUT/finalizer-$TAG.cdx.json") > "$WORK/digest"
log "image index digest $(cat "$WORK/digest")"

log "chart"
(cd deploy/helm/chart-test && GOFLAGS= go run ./cmd/package-chart -chart ../finalizer -version "$TAG" -o "$OUT") >/dev/null

# The Flink plugin (a Maven project), when the tree has it.
if [[ -f flink/pom.xml ]]; then
  log "Flink plugin (mvn)"
  mvn -B -q -ntp -Dstyle.color=never -f flink/pom.xml -Dmaven.repo.local="$CACHE/maven/repository" -Dproject.build.outputTimestamp="$SOURCE_DATE_EPOCH" \
    -Drevision="$VERSION" clean package -DskipTests
  for jar in flink/target/*.jar; do
    case "$jar" in *-sources.jar|*-javadoc.jar|*/original-*.jar) continue ;; esac
    cp "$jar" "$OUT/"
  done
fi

(cd "$OUT" && sha256sum -- * > SHA256SUMS)
log "dist/$TAG:"
(cd "$OUT" && ls -l && cat SHA256SUMS) >&2
