FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /toolstream ./cmd/toolstream

FROM gcr.io/distroless/static
COPY --from=build /toolstream /toolstream
ENTRYPOINT ["/toolstream"]
