package agent

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// SpecsBucket is the key-value bucket of the runs' requests: what a driver
// that takes a run over needs to ask the model again.
const SpecsBucket = "ts_agent"

// Spec is what a run was asked: the client's request and how to drive it.
// It is stored once, by the first request of the run; a later request of
// the same run (a reconnect, a resume after approval) drives the stored
// one.
type Spec struct {
	Tenant  string `json:"tenant"`
	User    string `json:"user,omitempty"`
	Session string `json:"session,omitempty"`
	Run     string `json:"run"`
	// Name is the run as the client named it, when that is not Run (the
	// gateway keeps a user's runs under names of that user's, RunID): a
	// name is one run's in its tenant, so another user's request naming
	// it is refused (ErrNotFound) instead of starting a run of its own.
	Name string `json:"name,omitempty"`
	// Format is the provider shape: openai-chat, openai-responses or
	// anthropic (runs.Format*).
	Format string `json:"format"`
	// Upstream names the upstream the rounds go to ("" routes by model).
	Upstream string `json:"upstream,omitempty"`
	// Body is the client's request body.
	Body json.RawMessage `json:"body"`
	// OnDisconnect is "cancel" when the client asked the run to end with
	// its connection; "" or "continue" otherwise.
	OnDisconnect string `json:"on_disconnect,omitempty"`
	// Key is the hash of the client key the request came with: the rounds
	// it asks count against that key (the latest request's, like
	// OnDisconnect).
	Key string `json:"key,omitempty"`
	// Memory is MemoryOff when the key or the request leaves the user's
	// memory out of the run (the latest request's, like Key).
	Memory string `json:"memory,omitempty"`
	// PlansOff and DelegateOff: the key turned run mode's built-in tool
	// off for its runs (the latest request's, like Key; a key cannot turn
	// on what Config turned off). A child run inherits them.
	PlansOff    bool `json:"plans_off,omitempty"`
	DelegateOff bool `json:"delegate_off,omitempty"`
	// Parent is the run whose toolstream_delegate call started this one
	// ("" for a client's run); Depth counts the parents. A child run's
	// Tools are the only tools its rounds offer (some of its parent's),
	// and RoundsMax and TokensMax its budget, carved from its parent's
	// (0: the driver's RoundsMax, no token bound). Stored with the run's
	// first request: a later request of the run cannot change them.
	Parent    string   `json:"parent,omitempty"`
	Depth     int      `json:"depth,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	RoundsMax int      `json:"rounds_max,omitempty"`
	TokensMax int64    `json:"tokens_max,omitempty"`
}

// stored is a bucket record: the spec and what ended the run, sealed
// under the run's user's data key (the body is personal data: erasing the
// user makes it unreadable, docs/design.md invariant 8).
type stored struct {
	Spec   Spec   `json:"spec"`
	Ended  string `json:"ended,omitempty"` // a Reason* when the run was ended by the driver
	Detail string `json:"detail,omitempty"`
	// Turns are the digests of the conversations the run took (its first
	// request's, then each new question's): a request whose conversation
	// is one of them is a retry.
	Turns []string `json:"turns,omitempty"`
	// Inputs is how many user messages of the first request lead the run's
	// history (the first request's conversation is sent as it is instead).
	Inputs int `json:"inputs,omitempty"`
	// Last is the run's latest user message: what each round recalls the
	// user's memory for.
	Last string `json:"last,omitempty"`
	// Pending is the digest of the turn being recorded and PendingAt when
	// it was said: a retry of it writes its messages to memory with the
	// same time, so the memory service stores them once.
	Pending   string    `json:"pending,omitempty"`
	PendingAt time.Time `json:"pending_at,omitzero"`
}

type sealedRecord struct {
	User string `json:"u,omitempty"` // whose key sealed it (as in an event's envelope)
	Key  string `json:"k"`           // the data key's id
	Data []byte `json:"d"`           // nonce, then the sealed JSON of stored
}

const nonceSize = 12

type specStore struct {
	js   jetstream.JetStream
	kv   jetstream.KeyValue
	keys events.Keyring
}

func openStore(ctx context.Context, js jetstream.JetStream, keys events.Keyring, replicas int) (*specStore, error) {
	kv, err := js.KeyValue(ctx, SpecsBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = createStore(ctx, js, replicas)
	}
	if err != nil {
		return nil, fmt.Errorf("agent: spec bucket (only the admin makes it: serve on one machine, toolstream setup on a cluster): %w", err)
	}
	return &specStore{js: js, kv: kv, keys: keys}, nil
}

func createStore(ctx context.Context, js jetstream.JetStream, replicas int) (jetstream.KeyValue, error) {
	return js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: SpecsBucket, Description: "Toolstream run-mode requests (sealed)", History: 1, Replicas: max(replicas, 1)})
}

// CreateStore makes the bucket of the runs' requests (SpecsBucket) when it
// is missing: what the admin does before a driver of the driver role
// opens it (the role may write the bucket, not create it).
func CreateStore(ctx context.Context, js jetstream.JetStream, replicas int) error {
	if _, err := js.KeyValue(ctx, SpecsBucket); !errors.Is(err, jetstream.ErrBucketNotFound) {
		return err
	}
	if _, err := createStore(ctx, js, replicas); err != nil {
		return fmt.Errorf("agent: spec bucket: %w", err)
	}
	return nil
}

func specKey(tenant, run string) (string, error) {
	if err := events.ValidTenant(tenant); err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if run == "" {
		return "", fmt.Errorf("%w: no run", ErrBadRequest)
	}
	return "spec." + tenant + "." + base64.RawURLEncoding.EncodeToString([]byte(run)), nil
}

// aad binds a sealed record to its key.
func aad(key string) []byte { return []byte("ts_agent/" + key) }

func (s *specStore) seal(key string, st *stored) ([]byte, error) {
	plain, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	id, aead, err := s.keys.SealKey(st.Spec.Tenant, events.UserScope(st.Spec.User))
	if err != nil {
		return nil, fmt.Errorf("agent: seal the run's request: %w", err)
	}
	data := make([]byte, nonceSize, nonceSize+len(plain)+aead.Overhead())
	if _, err := rand.Read(data); err != nil {
		return nil, err
	}
	data = aead.Seal(data, data[:nonceSize], plain, aad(key))
	return json.Marshal(sealedRecord{User: st.Spec.User, Key: id, Data: data})
}

func (s *specStore) open(key, tenant string, v []byte) (*stored, error) {
	var r sealedRecord
	if err := json.Unmarshal(v, &r); err != nil || len(r.Data) < nonceSize {
		return nil, fmt.Errorf("agent: corrupt record %s", key)
	}
	aead, err := s.keys.OpenKey(tenant, events.UserScope(r.User), r.Key)
	if err != nil {
		return nil, fmt.Errorf("agent: open the run's request: %w", err)
	}
	plain, err := aead.Open(nil, r.Data[:nonceSize], r.Data[nonceSize:], aad(key))
	if err != nil {
		return nil, fmt.Errorf("agent: open the run's request %s: %w", key, err)
	}
	var st stored
	if err := json.Unmarshal(plain, &st); err != nil {
		return nil, fmt.Errorf("agent: corrupt record %s: %w", key, err)
	}
	return &st, nil
}

// claim stores spec as its run's unless the run has one; it returns the
// run's record (the stored one when there was one) and whether spec is
// the one stored now. ErrNotFound when spec's Name is another run's.
func (s *specStore) claim(ctx context.Context, spec Spec) (*stored, bool, error) {
	key, err := specKey(spec.Tenant, spec.Run)
	if err != nil {
		return nil, false, err
	}
	if err := s.claimName(ctx, spec); err != nil {
		return nil, false, err
	}
	e, err := s.kv.Get(ctx, key)
	if err == nil {
		st, err := s.open(key, spec.Tenant, e.Value())
		return st, false, err
	}
	if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, false, fmt.Errorf("agent: read the run's request: %w", err)
	}
	st := &stored{Spec: spec}
	b, err := s.seal(key, st)
	if err != nil {
		return nil, false, err
	}
	if _, err := s.kv.Create(ctx, key, b); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) { // another request of the run was first
			return s.claim(ctx, spec)
		}
		return nil, false, fmt.Errorf("agent: store the run's request: %w", err)
	}
	return st, true, nil
}

// claimName records that spec's Name is its run's, unless it is already:
// ErrNotFound when it names another run (another user's).
func (s *specStore) claimName(ctx context.Context, spec Spec) error {
	if spec.Name == "" {
		return nil
	}
	key := "name." + spec.Tenant + "." + base64.RawURLEncoding.EncodeToString([]byte(spec.Name))
	for {
		e, err := s.kv.Get(ctx, key)
		if err == nil {
			if string(e.Value()) != spec.Run {
				return fmt.Errorf("%w: %s", ErrNotFound, spec.Name)
			}
			return nil
		}
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			return fmt.Errorf("agent: read the run's name: %w", err)
		}
		if _, err := s.kv.Create(ctx, key, []byte(spec.Run)); err == nil {
			return nil
		} else if !errors.Is(err, jetstream.ErrKeyExists) { // else another request was first: look again
			return fmt.Errorf("agent: claim the run's name: %w", err)
		}
	}
}

// end records why the driver ended the run.
func (s *specStore) end(ctx context.Context, st *stored, reason, detail string) error {
	key, err := specKey(st.Spec.Tenant, st.Spec.Run)
	if err != nil {
		return err
	}
	next := *st
	next.Ended, next.Detail = reason, detail
	b, err := s.seal(key, &next)
	if err != nil {
		return err
	}
	if _, err := s.kv.Put(ctx, key, b); err != nil {
		return fmt.Errorf("agent: record the run's end: %w", err)
	}
	*st = next
	return nil
}

// load reads a run's record. An error when there is none.
func (s *specStore) load(ctx context.Context, tenant, run string) (*stored, error) {
	key, err := specKey(tenant, run)
	if err != nil {
		return nil, err
	}
	e, err := s.kv.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("agent: read the run's request: %w", err)
	}
	return s.open(key, tenant, e.Value())
}

// keysUnder lists the keys matching filter that hold a value, sorted: the
// subjects with messages from the bucket's stream info, less those whose
// last message deletes or purges the key. nats.go's key listing makes an
// ephemeral consumer, and a consumer's deliver subject is checked against
// none of its creator's permissions (docs/security.md), so the driver role
// may make no consumer, on this bucket either.
func (s *specStore) keysUnder(ctx context.Context, filter string) ([]string, error) {
	st, err := s.js.Stream(ctx, "KV_"+SpecsBucket)
	if err != nil {
		return nil, err
	}
	prefix := "$KV." + SpecsBucket + "."
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(prefix+filter))
	if err != nil {
		return nil, err
	}
	var out []string
	for subj := range info.State.Subjects {
		k := strings.TrimPrefix(subj, prefix)
		if _, err := s.kv.Get(ctx, k); errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			continue
		} else if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out, nil
}
