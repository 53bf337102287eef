package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// Status is what the record of a call says, for operators (toolstream
// calls) and tests.
type Status struct {
	Key        string
	State      string // pending, awaiting_approval, running, done, not_executed
	Name       string
	Version    int
	Attempts   int       // invocations begun
	Invoked    bool      // an invocation began and has no recorded result
	Owner      string    // executor holding (or last holding) the lease
	LeaseUntil time.Time // zero when no lease
	Takeovers  int
	Approval   string // "", granted, denied
	Error      events.ErrorType
	Message    string
	InputSeq   uint64 // stream sequence of the CallCompleted
}

// CallStatus reads the record of the call with idempotency key callKey
// from bucket (the default "ts_exec" when empty). It returns nil, nil when
// the call has no record, and ErrInvalidKey when callKey is not one of
// tenant's keys.
func CallStatus(ctx context.Context, js jetstream.JetStream, bucket, tenant, callKey string) (*Status, error) {
	if _, _, _, ok := splitKey(tenant, callKey); !ok {
		return nil, fmt.Errorf("%w: %q is not a call key of tenant %s", ErrInvalidKey, callKey, tenant)
	}
	if bucket == "" {
		bucket = "ts_exec"
	}
	kv, err := js.KeyValue(ctx, bucket)
	if err != nil {
		return nil, fmt.Errorf("executor: bucket %s: %w", bucket, err)
	}
	rec, _, err := (&store{kv: kv}).get(ctx, tenant, callKey)
	if err != nil || rec == nil {
		return nil, err
	}
	s := &Status{
		Key: rec.Key, State: rec.State, Name: rec.Name, Version: rec.Version, Attempts: rec.Attempt,
		Invoked: rec.Invoked, Owner: rec.Owner, Takeovers: rec.Takeovers, Approval: rec.Approval, InputSeq: rec.InputSeq,
	}
	if rec.LeaseUntil != 0 {
		s.LeaseUntil = time.Unix(0, rec.LeaseUntil)
	}
	if rec.Outcome != nil {
		s.Error, s.Message = rec.Outcome.Error, rec.Outcome.Message
	}
	return s, nil
}
