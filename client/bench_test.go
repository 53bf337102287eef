package client_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// BenchmarkProduce publishes every recorded stream, once per iteration
// under new stream ids, through the client's Writer (event by event, as a
// proxy would, and from a reader) and raw (WithRaw: verbatim, the least a
// producer does), on one embedded server: the ratio of their times is the
// cost of normalising and sealing at the edge.
//
//	go test -run '^$' -bench Produce -benchtime 20x -count 5 ./client/
func BenchmarkProduce(b *testing.B) {
	bs := bustest.Start(b)
	ctx := context.Background()
	recs := recordings(b)
	// The server's own in-process connection.
	c, err := client.Connect(ctx, client.WithConn(bs.Conn), client.WithKeys(bs.Keys))
	if err != nil {
		b.Fatal(err)
	}
	// Warm up: the user's data key, the connection's buffers.
	for i, rec := range recs {
		if _, err := c.Publish(ctx, bytes.NewReader(lines(rec.events)), client.WithStream(client.Stream{Tenant: "bench", Format: rec.provider, ID: fmt.Sprint("warm", i), User: "u"})); err != nil {
			b.Fatal(err)
		}
	}
	run := 0
	for _, way := range []string{"writer-each", "writer-reader", "raw"} {
		b.Run(way, func(b *testing.B) {
			raw := 0
			for b.Loop() {
				run++
				for i, rec := range recs {
					id := fmt.Sprintf("b%d-%d", run, i)
					raw += len(rec.events)
					switch way {
					case "raw":
						if _, err := c.Publish(ctx, bytes.NewReader(lines(rec.events)), client.WithStream(client.Stream{Tenant: "bench", Format: rec.provider, ID: id, User: "u", Raw: true})); err != nil {
							b.Fatal(err)
						}
					case "writer-reader":
						if _, err := c.Publish(ctx, bytes.NewReader(lines(rec.events)), client.WithStream(client.Stream{Tenant: "bench", Format: rec.provider, ID: id, User: "u"})); err != nil {
							b.Fatal(err)
						}
					default:
						w, err := c.NewWriter(ctx, client.WithStream(client.Stream{Tenant: "bench", Format: rec.provider, ID: id, User: "u"}))
						if err != nil {
							b.Fatal(err)
						}
						for _, ev := range rec.events {
							if err := w.Write(ctx, ev); err != nil {
								b.Fatal(err)
							}
						}
						if _, err := w.Close(ctx); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			b.ReportMetric(float64(raw)/b.Elapsed().Seconds(), "raw-events/s")
		})
	}
}
