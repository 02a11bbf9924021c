# The checkpoint finalizer's worker: a static Go binary on distroless, run
# as a non-root user. Build from the repository root:
#
#   docker build -t checkpoint-finalizer/worker .
#
# The image holds no configuration: everything comes from FINALIZER_*
# environment variables (see `finalizer-worker -h` and docker-compose.yml).

# Go version of go.mod: the builder must not be older.
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# CGO off: bbolt, go-zookeeper and client-go are pure Go, and a static
# binary runs on distroless/static without a libc.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/finalizer-worker ./worker/cmd/finalizer-worker
# The state directory exists in the image, owned by the runtime user, so a
# named volume mounted there starts with that owner (distroless has no
# shell to chown it at run time).
RUN mkdir -p /out/var/lib/finalizer/state

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/finalizer-worker /usr/local/bin/finalizer-worker
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
