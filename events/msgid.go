package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"slices"
	"strings"
)

// Message ids. JetStream's duplicate window is per stream and keyed by
// the Nats-Msg-Id header alone, which any publisher sets as it likes: in a
// stream a tenant's producer may write (TS_IN: ts.in.<tenant>.>, TS_MODEL:
// ts.model.<tenant>.>), a plain event id there could be claimed ahead by
// another tenant (ids are derived from their cause, so they are
// predictable), and the real event would then be dropped as its
// duplicate. So in those two streams the header is a tag only its
// publisher can make: an HMAC of the subject and the event id under a
// secret of the publishing identity (MsgIDKey), kept across restarts
// (derived from its credential's seed, or from the installation's account
// seed for serve's own components). The same publisher writing the same
// event again (a relay retry, a producer resuming after a crash) sends
// the same header, so the duplicate window still keeps one copy; nobody
// else can write it first. The header is the tag alone, never the event
// id: the server names the stream's last message id to any publisher
// whose Nats-Expected-Last-Msg-Id is wrong (docs/security.md, "Known
// holes", B), and an event id names its tenant and stream (an edge
// producer's, its file). The event's own ID (what views and digests use)
// is in the envelope, unchanged.

// MsgIDKeyBytes is the size of a message-id key.
const MsgIDKeyBytes = 32

// msgIDTagBytes is the tag's size: 128 bits of HMAC-SHA256.
const msgIDTagBytes = 16

// MsgIDTagPrefix begins a tagged Nats-Msg-Id; no event id begins with it.
const MsgIDTagPrefix = "~"

// TaggedStream reports whether the message ids of stream are tagged: the
// streams a tenant's producer may publish to.
func TaggedStream(stream string) bool { return stream == StreamIn || stream == StreamModel }

// MsgID is the Nats-Msg-Id under which the holder of key publishes the
// event id on subject: in TS_IN and TS_MODEL, "~" + the base64url
// HMAC-SHA256 of subject and id under key (128 bits); elsewhere, or with
// an empty key, id itself. Every writer of the log makes its ids here,
// and every one that serve, setup or a client runs has a key (a bus and
// a client make one when none is given); an empty key is for tests and
// tools that write a log of their own.
func MsgID(key []byte, subject, id string) string { return NewMsgIDs(key).MsgID(subject, id) }

// MsgIDs makes MsgID's ids under one key with one HMAC, reset for each id
// (MsgID makes a new one per call: on a producer's path, one per message).
// A MsgIDs is not safe for concurrent use.
type MsgIDs struct {
	key []byte
	mac hash.Hash
	buf []byte
}

// NewMsgIDs returns a MsgIDs for key.
func NewMsgIDs(key []byte) *MsgIDs { return &MsgIDs{key: key} }

// MsgID is MsgID(key, subject, id).
func (m *MsgIDs) MsgID(subject, id string) string {
	s, err := StreamOf(subject)
	if len(m.key) == 0 || err != nil || !TaggedStream(s) {
		return id
	}
	return m.tag(subject, id)
}

// tag is the HMAC tag of subject and id under m's key.
func (m *MsgIDs) tag(subject, id string) string {
	if m.mac == nil {
		m.mac = hmac.New(sha256.New, m.key)
	}
	m.mac.Reset()
	m.buf = append(append(append(m.buf[:0], subject...), 0), id...)
	m.mac.Write(m.buf)
	var sum [sha256.Size]byte
	return MsgIDTagPrefix + base64.RawURLEncoding.EncodeToString(m.mac.Sum(sum[:0])[:msgIDTagBytes])
}

// OwnedKinds are the kinds of subject whose message ids are tagged under
// their writer's key in the streams TS_IN and TS_MODEL do not cover: every
// kind of TS_CALLS, TS_OUT and TS_MEM, streams several roles write.
// Deduplication is by message id across a whole stream, whoever wrote
// either message, and these ids are derived from their cause (ResultID,
// CompletedID, ResponseOutcomeID, VerifiedID, RoundSettledID,
// ConstraintsCheckedID, MemoryWriteID, ...), so a plain one is an id
// another role's credential could claim first, on a subject of the same
// stream it may write, and the owner's publish would be dropped as its
// duplicate (a relay drops it silently). The writers: the executor's
// outcomes (result; the driver's built-in outcomes on subjects of their
// own) and execution events (exec), the operators' approval decisions
// (approval), the assembler's calls (call) and response outcomes (resp),
// the verifier's verdicts (answer), the driver's constraint checks
// (check), the runs role's run events (run), the memory role's and the
// operators' memory events (mem). A decision tagged under its operator's
// key is no longer one per key whoever decides: the first decision a
// call's approval subject holds is the decision (the executor takes no
// other). TS_GW (gw) is not here: only the admin writes it.
var OwnedKinds = []string{"result", "exec", "approval", "call", "resp", "answer", "check", "run", "mem"}

// OwnedMsgID is the Nats-Msg-Id under which the holder of key publishes
// the event id on subject: on a subject of an owned kind (OwnedKinds),
// the tag MsgID makes in TS_IN and TS_MODEL, which no other role can
// compute; elsewhere, or with an empty key, MsgID(key, subject, id). Every
// process of the owning role is given the same key (its creds' or the
// installation's), so a republish is still dropped as a duplicate.
func OwnedMsgID(key []byte, subject, id string) string {
	kind, _, _ := strings.Cut(strings.TrimPrefix(subject, SubjectPrefix+"."), ".")
	if len(key) == 0 || !strings.HasPrefix(subject, SubjectPrefix+".") || !slices.Contains(OwnedKinds, kind) {
		return MsgID(key, subject, id)
	}
	return NewMsgIDs(key).tag(subject, id)
}

// DeriveMsgIDKey derives a message-id key from a secret the publisher
// keeps (a credential's seed): the same secret gives the same key.
func DeriveMsgIDKey(secret []byte) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("toolstream message-id key v1"))
	return mac.Sum(nil)
}

// SameSubject reports whether stored, the subject a message was stored
// under, is published, the subject it was published to: the same, or
// published with the model partition's token the stream added.
func SameSubject(published, stored string) bool {
	if published == stored {
		return true
	}
	rest, ok := strings.CutPrefix(stored, published+".")
	return ok && !strings.Contains(rest, ".") && strings.HasPrefix(published, SubjectPrefix+".model.")
}
