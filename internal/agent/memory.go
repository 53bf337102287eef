package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/memory/memapi"
)

// Memory in the loop: a run of a user (Spec.User) writes each user
// message the client sends in it to the user's memory (the memory
// service, tsv.memory.message, as any client writes it), and before each
// round recalls the user's memory for the run's latest user message,
// within a token budget, into the model's context in the provider's own
// shape: a system message (Chat), the instructions (Responses), the
// system prompt (Anthropic), marked as recalled memory, hard constraints
// first (as the recall orders them).
//
// A recall is of the run's tenant and user only, the ones the key or the
// request named: the memory service answers for that user and no other,
// so nothing of one user's memory reaches another's run. A run without a
// user neither recalls nor writes. The operator turns memory off for a
// gateway (MemoryConfig.Off), a key (its memory: false) or a request
// (Toolstream-Memory: off, Spec.Memory); it is on by default where the
// memory service runs, and a server that serves no memory service
// (client.ErrUnavailable), or a driver whose identity may not ask it
// (client.ErrPermissionDenied), is a run without memory (said once in
// the log), not an error. Any other
// failure of a write or a recall fails the request: a retry writes the
// same message under the same id and time (stored once) and recalls
// again, where a run that went on without the user's constraints might
// answer against them.

// MemoryConfig is run mode's use of the users' memory.
type MemoryConfig struct {
	// Off: runs neither recall nor write memory.
	Off bool
	// RecallBudgetTokens bounds what a round's recall adds to the model's
	// context (client.RecallOptions.BudgetTokens: the records whose texts
	// fit, best first, the first always); default 300.
	RecallBudgetTokens int
}

// MemoryOff is Spec.Memory for a request that leaves memory out.
const MemoryOff = "off"

// RecalledMemory is one record a round's recall put into the model's
// context: its id and version (what `toolstream memory history` shows)
// and kind, never its text.
type RecalledMemory struct {
	ID      string `json:"id"`
	Version int    `json:"version"`
	Kind    string `json:"kind"`
}

// memoryOn reports whether spec's run uses its user's memory.
func (d *Driver) memoryOn(spec Spec) bool {
	return !d.set().Memory.Off && spec.User != "" && spec.Memory != MemoryOff
}

// memoryMessageID names the i-th user message of the turn whose
// conversation has digest in run: the same message of a retry has the
// same id (with the same time: stored once), two runs' never do.
func memoryMessageID(run, digest string, i int) string {
	return fmt.Sprintf("%s%s:%d", memoryRunPrefix(run), digest[:min(16, len(digest))], i)
}

// memoryRunPrefix begins the id of every message run wrote to memory
// (and of the records read from it): "run:<run>:", or the run's digest
// for a run whose name is long (memory's ids are bounded, IDBytesMax).
func memoryRunPrefix(run string) string {
	if len(run) > 160 {
		h := sha256.Sum256([]byte(run))
		run = hex.EncodeToString(h[:16])
	}
	return "run:" + run + ":"
}

// memoryUnreachable reports whether err says the memory service is not
// there for this driver: nobody serves it (a server without memory), or
// the driver's identity may not ask it (a gateway whose role has no
// memory). Such a run goes on without memory, said once in the log.
func (d *Driver) memoryUnreachable(err error) bool {
	switch {
	case errors.Is(err, client.ErrUnavailable):
		d.memOnce.Do(func() { d.log.Info("run mode: no memory service answers; runs go on without memory") })
	case errors.Is(err, client.ErrPermissionDenied):
		d.memOnce.Do(func() {
			d.log.Warn("run mode: this identity may not ask the memory service; runs go on without memory", "err", err)
		})
	default:
		return false
	}
	return true
}

// remember writes a turn's user messages to the user's memory, said at at.
func (d *Driver) remember(ctx context.Context, spec Spec, digest string, texts []string, at time.Time) error {
	if !d.memoryOn(spec) {
		return nil
	}
	for i, text := range texts {
		rep, err := d.runs.Message(ctx, spec.Tenant, spec.User, memoryMessageID(spec.Run, digest, i), text, at)
		if d.memoryUnreachable(err) {
			return nil
		}
		if errors.Is(err, client.ErrBadInput) {
			// The memory service will not take this message (over its
			// TextBytesMax): the run goes on, the message unremembered.
			d.log.Info("memory refused a user message", "tenant", spec.Tenant, "run", spec.Run, "err", err)
			continue
		}
		if err != nil {
			return fmt.Errorf("%w: write the user's message to memory: %w", ErrMemory, err)
		}
		if !rep.Applied {
			// The message was read and refused (too long, nothing to keep):
			// the run goes on; the memory service says why.
			d.log.Info("memory refused a user message", "tenant", spec.Tenant, "run", spec.Run, "reason", rep.Rejected)
		}
	}
	return nil
}

// recall returns the user's memory for query as the text the model is
// given ("" for none) and the records it holds. The records read from
// this run's own messages are left out: the model has them in the
// conversation.
func (d *Driver) recall(ctx context.Context, spec Spec, query string) (string, []RecalledMemory, error) {
	if !d.memoryOn(spec) || strings.TrimSpace(query) == "" {
		return "", nil, nil
	}
	budget := d.set().Memory.RecallBudgetTokens
	if budget <= 0 {
		budget = 300
	}
	// A user message longer than the service takes as a query (a pasted
	// document) is recalled for by its first part, not refused: the run
	// goes on with the user's constraints in view.
	out, err := d.runs.Recall(ctx, spec.Tenant, spec.User, cutQuery(query, memapi.TextBytesMax), client.RecallOptions{BudgetTokens: budget})
	if d.memoryUnreachable(err) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("%w: recall the user's memory: %w", ErrMemory, err)
	}
	var b strings.Builder
	b.WriteString("Recalled memory of this user (Toolstream memory: what the user told earlier, recalled for this request; constraints first, to be respected unless the user says otherwise now):")
	var recs []RecalledMemory
	own := memoryRunPrefix(spec.Run)
	for _, h := range out.Results {
		if strings.HasPrefix(h.ID, own) {
			continue // said in this run: the model has it in the conversation
		}
		fmt.Fprintf(&b, "\n- [%s] %s", h.Kind, strings.TrimSpace(h.Text))
		recs = append(recs, RecalledMemory{ID: h.ID, Version: h.Version, Kind: h.Kind})
	}
	if len(recs) == 0 {
		return "", nil, nil
	}
	return b.String(), recs, nil
}

// cutQuery cuts a recall's query to at most n bytes on a character
// boundary.
func cutQuery(q string, n int) string {
	if len(q) <= n {
		return q
	}
	for n > 0 && !utf8.RuneStart(q[n]) {
		n--
	}
	return q[:n]
}

// withMemory puts the recalled memory text into a round's body in the
// provider's shape: a system message after the client's leading system
// messages (Chat), appended to the instructions (Responses) or to the
// system prompt (Anthropic).
func withMemory(format string, body map[string]json.RawMessage, conv []json.RawMessage, text string) (map[string]json.RawMessage, []json.RawMessage, error) {
	if text == "" {
		return body, conv, nil
	}
	out := make(map[string]json.RawMessage, len(body)+1)
	for k, v := range body {
		out[k] = v
	}
	switch format {
	case runs.FormatChat:
		msg, err := json.Marshal(map[string]string{"role": "system", "content": text})
		if err != nil {
			return nil, nil, err
		}
		i := 0
		for ; i < len(conv); i++ {
			var m message
			if json.Unmarshal(conv[i], &m) != nil || m.Role != "system" && m.Role != "developer" {
				break
			}
		}
		c := make([]json.RawMessage, 0, len(conv)+1)
		c = append(append(append(c, conv[:i]...), msg), conv[i:]...)
		return out, c, nil
	case runs.FormatResponses:
		out["instructions"] = appendText(body["instructions"], text)
	case runs.FormatAnthropic:
		raw := body["system"]
		var blocks []json.RawMessage
		if len(raw) > 0 && json.Unmarshal(raw, &blocks) == nil {
			b, err := json.Marshal(map[string]string{"type": "text", "text": text})
			if err != nil {
				return nil, nil, err
			}
			s, err := json.Marshal(append(blocks, b))
			if err != nil {
				return nil, nil, err
			}
			out["system"] = s
		} else {
			out["system"] = appendText(raw, text)
		}
	}
	return out, conv, nil
}

// appendText is the JSON string of raw's text (a string, or nothing)
// followed by text.
func appendText(raw json.RawMessage, text string) json.RawMessage {
	var s string
	if len(raw) > 0 && json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
		text = s + "\n\n" + text
	}
	b, _ := json.Marshal(text)
	return b
}
