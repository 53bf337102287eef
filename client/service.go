package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/internal/lanes"
)

// ErrConflict: a run's lease is held by another driver, or was lost.
var ErrConflict = errors.New("client: conflict")

// codeBusy is a service's refusal of a request it did not take (its lane
// was full): asked again.
const codeBusy = "503"

// ServiceError is a service's refusal: its code and message as the
// service sent them (nats.go micro's error headers). It unwraps to the
// sentinel the code stands for: 400 ErrBadInput, 403 ErrPermissionDenied,
// 404 ErrNotFound, 409 ErrConflict, 410 ErrNotFound that is also ErrErased
// (a memory record that was forgotten).
type ServiceError struct {
	Subject string
	Code    string
	Message string
}

func (e *ServiceError) Error() string {
	return fmt.Sprintf("client: %s: %s %s", e.Subject, e.Code, e.Message)
}

// Unwrap gives the sentinel of the code (nil for another code).
func (e *ServiceError) Unwrap() error {
	switch e.Code {
	case "400":
		return ErrBadInput
	case "403":
		return ErrPermissionDenied
	case "404", codeGone:
		return ErrNotFound
	case "409":
		return ErrConflict
	}
	return nil
}

// Is reports a 410 (gone: what was asked for was erased) as ErrErased.
func (e *ServiceError) Is(target error) bool {
	return e.Code == codeGone && target == ErrErased
}

// codeGone is a service's answer for what was there and was erased.
const codeGone = "410"

// request sends req as JSON to a service's subject and decodes its JSON
// answer into out. A 503 (busy: the request's lane in the service was full
// and it did nothing) is asked again after a wait (lanes.Wait: capped
// exponential backoff, full jitter) within ctx and the request timeout;
// no other refusal is. It returns a *ServiceError for the service's
// refusal (a 503 when still busy at the end), ErrUnavailable when nobody
// serves the subject, ErrPermissionDenied when this identity may not ask
// it.
func (c *Client) request(ctx context.Context, subject string, req, out any) error {
	data, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	ctx, cancel := c.requestContext(ctx)
	defer cancel()
	var msg *nats.Msg
	for busy := 1; ; busy++ {
		mark := c.mark()
		msg, err = c.nc.RequestWithContext(ctx, subject, data)
		if err != nil {
			err = c.refused(mark, err)
			if errors.Is(err, nats.ErrNoResponders) {
				return fmt.Errorf("client: %s: %w (does a running serve answer it?)", subject, err)
			}
			return fmt.Errorf("client: %s: %w", subject, err)
		}
		code := msg.Header.Get(micro.ErrorCodeHeader)
		if code == codeBusy && lanes.Wait(ctx, busy) == nil {
			continue
		}
		if code != "" {
			return &ServiceError{Subject: subject, Code: code, Message: msg.Header.Get(micro.ErrorHeader)}
		}
		break
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(msg.Data, out); err != nil {
		return fmt.Errorf("client: %s answered %.200q: %w", subject, msg.Data, err)
	}
	return nil
}
