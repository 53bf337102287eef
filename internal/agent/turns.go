package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/internal/runs"
)

// Turns of a run: a run's first request stores its spec and
// records the client's user messages in the run (RunMessage, through the
// runs service), so the run's history begins with them, as every
// provider's conversation must. A later request of the run is either the
// same request again (a reconnect, a retry, a resume after approval: its
// conversation is one the run already took) — it drives the run as it is
// and gets its answer — or a new question: a conversation the run has not
// taken. Its new user messages (those after the conversation's last
// assistant turn) are recorded in the run and the run goes on with a new
// round; the model is asked again with the run's whole conversation.

// conversationDigest names a request's conversation: what tells a retry
// from a new question.
func conversationDigest(conv []json.RawMessage) string {
	h := sha256.New()
	for _, m := range conv {
		var v any
		if json.Unmarshal(m, &v) == nil {
			b, _ := json.Marshal(v) // keys sorted: the same message is the same bytes
			h.Write(b)
		} else {
			h.Write(m)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// message is the part of a conversation's item a turn reads.
type message struct {
	Role    string          `json:"role"`
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content"`
}

// textOf is the text of a message's content: a string, or the text parts
// of an array (Chat's text, Responses' input_text, Anthropic's text).
func textOf(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		switch p.Type {
		case "text", "input_text":
			if p.Text != "" {
				out = append(out, p.Text)
			}
		}
	}
	return strings.Join(out, "\n")
}

// userTexts returns the texts of the user messages of conv (a message
// whose content has no text, such as Anthropic's tool results, has none).
func userTexts(conv []json.RawMessage) []string {
	var out []string
	for _, raw := range conv {
		var m message
		if json.Unmarshal(raw, &m) != nil || m.Role != "user" {
			continue
		}
		if t := textOf(m.Content); strings.TrimSpace(t) != "" {
			out = append(out, t)
		}
	}
	return out
}

// newUserTexts returns the user messages of conv after its last assistant
// turn: a new question's.
func newUserTexts(conv []json.RawMessage) []string {
	last := -1
	for i, raw := range conv {
		var m message
		if json.Unmarshal(raw, &m) == nil && (m.Role == "assistant" || m.Type == "function_call") {
			last = i
		}
	}
	return userTexts(conv[last+1:])
}

// startTurn records what the request brings to the run: on its first
// request the conversation's user messages (rec.Inputs of them lead the
// history), on a new question its new user messages; nothing for a
// request the run already took. It returns whether a turn was recorded.
func (d *Driver) startTurn(ctx context.Context, spec Spec, rec *stored, first bool) (bool, error) {
	body, err := parseBody(spec.Body)
	if err != nil {
		return false, err
	}
	conv, err := clientConversation(spec.Format, body)
	if err != nil {
		return false, err
	}
	digest := conversationDigest(conv)
	if !first {
		if len(rec.Turns) == 0 { // a run stored before turns were recorded: its first request's
			if b, err := parseBody(rec.Spec.Body); err == nil {
				if c, err := clientConversation(rec.Spec.Format, b); err == nil {
					rec.Turns = []string{conversationDigest(c)}
				}
			}
		}
		if slices.Contains(rec.Turns, digest) {
			return false, nil // the same request again
		}
	}
	texts := userTexts(conv)
	if !first {
		texts = newUserTexts(conv)
		if len(texts) == 0 {
			return false, nil // nothing new to ask: drive the run as it is
		}
	}
	if d.memoryOn(spec) {
		// The messages' time is the turn's first attempt's: a retry writes
		// the same messages to memory (stored once).
		if rec.Pending != digest || rec.PendingAt.IsZero() {
			rec.Pending, rec.PendingAt = digest, time.Now().UTC()
			if err := d.store.put(ctx, rec); err != nil {
				return false, err
			}
		}
		if err := d.remember(ctx, spec, digest, texts, rec.PendingAt); err != nil {
			return false, err
		}
	}
	for i, text := range texts {
		if err := d.message(ctx, spec, fmt.Sprintf("turn-%s-%d", digest, i), text); err != nil {
			return false, err
		}
	}
	if first {
		rec.Inputs = len(texts)
	}
	if len(texts) > 0 {
		rec.Last = texts[len(texts)-1]
	}
	rec.Pending, rec.PendingAt = "", time.Time{}
	rec.Turns = append(rec.Turns, digest)
	if err := d.store.put(ctx, rec); err != nil {
		return false, err
	}
	return true, nil
}

// message records one user message in the run through the runs service
// (sealed under the user's key; the service answers once the runs view
// applied it). The id makes a repeat of the same message the same event.
func (d *Driver) message(ctx context.Context, spec Spec, id, text string) error {
	return d.runsWrite(ctx, "message", spec.Tenant, runs.Request{Run: spec.Run, ID: id, Text: text, User: spec.User, Parent: spec.Parent, HistoryOptions: runs.HistoryOptions{Format: spec.Format}})
}

// runsWrite asks the runs service to write (verb message or end) and
// returns an error unless the view applied it.
func (d *Driver) runsWrite(ctx context.Context, verb, tenant string, req runs.Request) error {
	data, err := json.Marshal(req)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, d.cfg.ServiceTimeout)
	defer cancel()
	msg, err := d.cfg.Conn.RequestWithContext(rctx, runs.ServiceSubject(verb, tenant), data)
	if err != nil {
		return runsErr(verb, err)
	}
	if code := msg.Header.Get(micro.ErrorCodeHeader); code != "" {
		return runsErr(verb, fmt.Errorf("%s: %s", code, msg.Header.Get(micro.ErrorHeader)))
	}
	var reply runs.WriteReply
	if err := json.Unmarshal(msg.Data, &reply); err != nil {
		return runsErr(verb, err)
	}
	if !reply.Applied {
		return runsErr(verb, fmt.Errorf("refused: %s %s", reply.Reason, reply.Detail))
	}
	return nil
}

// put stores a run's record as it is now.
func (s *specStore) put(ctx context.Context, st *stored) error {
	key, err := specKey(st.Spec.Tenant, st.Spec.Run)
	if err != nil {
		return err
	}
	b, err := s.seal(key, st)
	if err != nil {
		return err
	}
	if _, err := s.kv.Put(ctx, key, b); err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("agent: record the run's turn: %w", err)
	}
	return nil
}

// latestUserText is the run's latest user message: the last one a turn
// recorded, or, for a run stored before it was kept, its first request's
// last.
func latestUserText(rec *stored) string {
	if rec.Last != "" {
		return rec.Last
	}
	body, err := parseBody(rec.Spec.Body)
	if err != nil {
		return ""
	}
	conv, err := clientConversation(rec.Spec.Format, body)
	if err != nil {
		return ""
	}
	if t := userTexts(conv); len(t) > 0 {
		return t[len(t)-1]
	}
	return ""
}
