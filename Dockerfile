# The toolstream binary on a minimal image. docker-compose.yml builds it for every service.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/toolstream ./cmd/toolstream \
 && mkdir -p /out/data /out/auth /out/out/nats /out/out/creds/admin /out/out/creds/assembler \
      /out/out/creds/executor /out/out/creds/verifier /out/out/creds/memory /out/out/creds/producers /out/creds

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/toolstream /usr/local/bin/toolstream
# An empty /data owned by the image's user: a named volume mounted there starts with this
# ownership, so the projections' Pebble views can be written without running as root.
COPY --from=build --chown=65532:65532 /out/data /data
# The same for the security material and the credentials docker-compose.yml's auth service
# writes (auth init), and the mount point of a role's credentials.
COPY --from=build --chown=65532:65532 /out/auth /auth
COPY --from=build --chown=65532:65532 /out/out /out
COPY --from=build --chown=65532:65532 /out/creds /creds
USER 65532:65532
WORKDIR /data
VOLUME ["/data"]
ENTRYPOINT ["/usr/local/bin/toolstream"]
# Inside a container network the server must listen on every address; give --tls-cert and
# --tls-key (and drop --allow-plaintext) when the port is reachable from anywhere else.
CMD ["serve", "--data", "/data", "--listen", "0.0.0.0:4222", "--allow-plaintext"]
