# The checkpoint finalizer's worker, with the `finalizer` CLI next to it
# (operators exec into a pod to run it): static Go binaries on distroless,
# run as a non-root user. Build from the repository root:
#
#   docker build -t checkpoint-finalizer/worker .
#   docker exec <container> finalizer list --stuck
#
# The image holds no configuration: everything comes from FINALIZER_*
# environment variables (see `finalizer-worker -h` and docker-compose.yml).
#
# worker/image_test.go runs this file's `go build` lines as they are (same
# flags, CGO_ENABLED=0) and checks that each binary is statically linked,
# stripped and answers --version; worker/compose_test.go checks the rest.

# Go version of go.mod: the builder must not be older.
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# CGO off: bbolt, go-zookeeper and client-go are pure Go, and a static
# binary runs on distroless/static without a libc. -buildvcs=false because
# .git is not in the build context (.dockerignore): `--version` says
# "(devel) (unknown, <go>)", the image tag names the build.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w' -o /out/finalizer-worker ./worker/cmd/finalizer-worker && \
    CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w' -o /out/finalizer ./client/cmd/finalizer
# The state directory exists in the image, owned by the runtime user, so a
# named volume mounted there starts with that owner (distroless has no
# shell to chown it at run time).
RUN mkdir -p /out/var/lib/finalizer/state

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/finalizer-worker /usr/local/bin/finalizer-worker
COPY --from=build /out/finalizer /usr/local/bin/finalizer
COPY --from=build --chown=65532:65532 /out/var/lib/finalizer /var/lib/finalizer
USER 65532:65532
# Container defaults: listen for scrapes on every interface, keep local
# state under the volume. Everything else is set by the deployment.
ENV FINALIZER_METRICS_ADDRESS=0.0.0.0:9464 \
    FINALIZER_EMBEDDED_PATH=/var/lib/finalizer/references.db \
    FINALIZER_STATE_BUCKET=file:///var/lib/finalizer/state
EXPOSE 9464
VOLUME ["/var/lib/finalizer"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/finalizer-worker", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/finalizer-worker"]
