# The toolstream binary on a minimal image. docker-compose.yml builds it for every service.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/toolstream ./cmd/toolstream \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/toolstream /usr/local/bin/toolstream
# An empty /data owned by the image's user: a named volume mounted there starts with this
# ownership, so the projections' Pebble views can be written without running as root.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
WORKDIR /data
VOLUME ["/data"]
ENTRYPOINT ["/usr/local/bin/toolstream"]
CMD ["serve", "--data", "/data", "--listen", "0.0.0.0:4222"]
