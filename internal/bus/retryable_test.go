package bus_test

import (
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestRetryableJudgesTheServersOwnErrors asks a real server for the errors
// stream setup meets and checks which ones ensureStream waits out. JetStream
// code 10049 (JSStreamCreateErrF, "{err}") is the server's generic wrapper
// of a stream creation that failed for a reason of its own: a store that
// cannot be created (disk full, a directory it may not write), a mirror's or
// source's filter it refuses. Its HTTP status is 500, but none of those
// goes away by asking again: a retry would only hide the reason for
// SetupMax (a minute), so setup fails at once and says it. A cluster that
// is forming answers 10008, 10023 or 10005 instead, which are waited out.
func TestRetryableJudgesTheServersOwnErrors(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		cfg  jetstream.StreamConfig
		code jetstream.ErrorCode
		want bool
	}{
		{"a mirror's filter the server refuses (10049, code 500)", jetstream.StreamConfig{Name: "T1",
			Mirror: &jetstream.StreamSource{Name: "T0", FilterSubject: "t0..x"}}, 10049, false},
		{"subjects another stream holds (10065)", jetstream.StreamConfig{Name: "T2", Subjects: []string{"ts.model.>"}}, 10065, false},
		{"replicas on a server without a cluster (10074)", jetstream.StreamConfig{Name: "T3", Subjects: []string{"t3.>"}, Replicas: 3}, 10074, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.JS.CreateStream(ctx, tc.cfg)
			var ae *jetstream.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("CreateStream: %v, want a JetStream API error", err)
			}
			if ae.ErrorCode != tc.code {
				t.Fatalf("code %d (%v), want %d", ae.ErrorCode, err, tc.code)
			}
			if got := bus.Retryable(err); got != tc.want {
				t.Fatalf("retryable(%v) = %v, want %v", err, got, tc.want)
			}
		})
	}
	// What a forming or failing-over cluster answers is waited out.
	for _, code := range []jetstream.ErrorCode{10008, 10023, 10005} {
		if !bus.Retryable(&jetstream.APIError{Code: 503, ErrorCode: code}) {
			t.Errorf("retryable(code %d) = false, want true", code)
		}
	}
}
