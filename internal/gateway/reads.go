package gateway

import (
	"fmt"

	"github.com/nats-io/nats.go"
)

// DialReads dials a connection for Config.Reads: a second connection to
// nc's server with nc's options, so the same identity and permissions,
// TLS, reconnect policy and handlers, named as nc with " reads". It grants
// nothing nc lacks. The caller closes it once the gateway's reads end
// (Gateway.Wait).
func DialReads(nc *nats.Conn) (*nats.Conn, error) {
	opts := nc.Opts
	opts.Name += " reads"
	reads, err := opts.Connect()
	if err != nil {
		return nil, fmt.Errorf("gateway: the reads connection: %w", err)
	}
	return reads, nil
}
