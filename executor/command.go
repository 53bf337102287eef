package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/toolstream/toolstream/events"
)

const (
	// stderrMax bounds the stderr a failed command reports.
	stderrMax = 4 << 10
	// waitDelay bounds the wait for a program's output to close after it
	// exited, or for it to exit after it was killed.
	waitDelay = 10 * time.Second
)

// commandTool runs the contract's program: the arguments JSON on stdin, the
// idempotency key in TOOLSTREAM_IDEMPOTENCY_KEY (and the tenant, tool and
// attempt in TOOLSTREAM_TENANT, TOOLSTREAM_TOOL, TOOLSTREAM_ATTEMPT), the
// result JSON on stdout. A non-zero exit is a typed error: stdout
// {"error": {"type": …, "message": …}} names its own type, otherwise it is a
// tool_error carrying the end of stderr. A program that cannot be started
// is unavailable. On timeout the program's process group is killed.
type commandTool struct {
	argv []string
	max  int
}

var _ Tool = (*commandTool)(nil)

func (t *commandTool) Invoke(ctx context.Context, call Call) (json.RawMessage, error) {
	cmd := exec.CommandContext(ctx, t.argv[0], t.argv[1:]...)
	cmd.Stdin = bytes.NewReader(call.Args)
	cmd.Env = append(os.Environ(),
		"TOOLSTREAM_IDEMPOTENCY_KEY="+call.Key,
		"TOOLSTREAM_TENANT="+call.Tenant,
		"TOOLSTREAM_TOOL="+call.Name,
		"TOOLSTREAM_ATTEMPT="+strconv.Itoa(call.Attempt),
	)
	stdout := &capBuffer{max: t.max}
	stderr := &tailBuffer{max: stderrMax}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// WaitDelay only guards against a program whose own children keep its
	// output open after it exited (or that ignores the kill).
	cmd.WaitDelay = waitDelay
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		// Nothing ran: safe to report as unavailable, even for at-most-once tools.
		return nil, Errorf(events.ErrUnavailable, "cannot run %s: %v", t.argv[0], err)
	}
	err := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if te := typedError(stdout.Bytes()); te != nil {
			return nil, te
		}
		return nil, Errorf(events.ErrToolError, "%s exited with status %d: %s", t.argv[0], exit.ExitCode(), tail(stderr.Bytes(), stderrMax))
	case errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success():
		// It succeeded but something kept its output open: use what it
		// printed if that is a whole JSON value.
	case err != nil:
		return nil, Errorf(events.ErrToolError, "%s: %v", t.argv[0], err)
	}
	if stdout.over {
		return nil, Errorf(events.ErrToolError, "%s printed more than %d bytes; ask for less", t.argv[0], t.max)
	}
	out := bytes.TrimSpace(stdout.Bytes())
	if len(out) == 0 {
		return json.RawMessage("null"), nil
	}
	if !json.Valid(out) {
		return nil, Errorf(events.ErrToolError, "%s printed something that is not JSON: %s", t.argv[0], tail(out, 256))
	}
	return out, nil
}

// capBuffer keeps the first max bytes written and notes the overflow.
type capBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room < len(p) {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) Bytes() []byte { return b.buf }
