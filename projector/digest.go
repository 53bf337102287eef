package projector

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/cockroachdb/pebble/v2"
)

// Digest identifies a view's content at a checkpoint: the SHA-256 of every
// state and rejection row in key order (length-prefixed). The outbox and the
// metadata are not content: they are in flight, not view.
type Digest struct {
	Seq  uint64 `json:"seq"`
	Sum  string `json:"sum"`
	Keys int    `json:"keys"`
}

func (d Digest) String() string { return fmt.Sprintf("seq=%d keys=%d sha256=%s", d.Seq, d.Keys, d.Sum) }

// View is a consistent read-only snapshot of a projection's state. Close it
// when done.
type View struct {
	snap    *pebble.Snapshot
	seq     uint64
	release func() // lets the runner swap its database again (erasure)
}

var _ Reader = (*View)(nil)

// View returns a snapshot of the state at the current checkpoint. Close it
// soon: an erasure waits for open views before it replaces the view's
// files.
func (r *Runner) View() *View {
	r.dbMu.RLock()
	v := SnapshotView(r.db)
	v.release = r.dbMu.RUnlock
	return v
}

// SnapshotView returns a snapshot view of a projection database.
func SnapshotView(db *pebble.DB) *View {
	snap := db.NewSnapshot()
	v := &View{snap: snap}
	if cp, ok, _ := getClone(snap, keyCheckpoint); ok && len(cp) == 8 {
		v.seq = binary.BigEndian.Uint64(cp)
	}
	return v
}

// Seq is the checkpoint the view reflects.
func (v *View) Seq() uint64 { return v.seq }

// Close releases the snapshot.
func (v *View) Close() error {
	err := v.snap.Close()
	if v.release != nil {
		v.release()
		v.release = nil
	}
	return err
}

// Get implements Reader.
func (v *View) Get(key []byte) ([]byte, bool, error) { return getClone(v.snap, stateKey(key)) }

// Scan implements Reader.
func (v *View) Scan(prefix []byte, fn func(key, value []byte) error) error {
	lower := stateKey(prefix)
	it, err := v.snap.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixUpper(lower)})
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := fn(it.Key()[len(prefixState):], it.Value()); err != nil {
			return err
		}
	}
	return it.Error()
}

// Digest computes the view's digest.
func (v *View) Digest() (Digest, error) {
	h := sha256.New()
	n := 0
	for _, p := range [][]byte{prefixReject, prefixState} {
		it, err := v.snap.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: prefixUpper(p)})
		if err != nil {
			return Digest{}, err
		}
		for ok := it.First(); ok; ok = it.Next() {
			writeLP(h, it.Key())
			writeLP(h, it.Value())
			n++
		}
		if err := it.Close(); err != nil {
			return Digest{}, err
		}
	}
	return Digest{Seq: v.seq, Sum: hex.EncodeToString(h.Sum(nil)), Keys: n}, nil
}

// Dump writes every state and rejection row in a canonical text form, for
// diffs between a live and a rebuilt view.
func (v *View) Dump(w io.Writer) error {
	for _, p := range [][]byte{prefixReject, prefixState} {
		it, err := v.snap.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: prefixUpper(p)})
		if err != nil {
			return err
		}
		for ok := it.First(); ok; ok = it.Next() {
			fmt.Fprintf(w, "%q = %x\n", it.Key(), it.Value())
		}
		if err := it.Close(); err != nil {
			return err
		}
	}
	return nil
}

// Rows calls fn for every rejection and state row of the view — the rows
// Digest covers — in key order, starting at the first key at or after
// from (nil: the first). Keys are whole ("r/…", "s/…"); key and value are
// valid only during the call. An error from fn stops the iteration and is
// returned. For row-by-row diffs of a live and a rebuilt view.
func (v *View) Rows(from []byte, fn func(key, value []byte) error) error {
	lower := prefixReject // "r/" < "s/": one range holds both
	if bytes.Compare(from, lower) > 0 {
		lower = from
	}
	it, err := v.snap.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixUpper(prefixState)})
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if !bytes.HasPrefix(k, prefixReject) && !bytes.HasPrefix(k, prefixState) {
			continue
		}
		if err := fn(k, it.Value()); err != nil {
			return err
		}
	}
	return it.Error()
}

// Digest returns the digest of the runner's view at its checkpoint.
func (r *Runner) Digest() (Digest, error) {
	v := r.View()
	defer v.Close()
	return v.Digest()
}

func writeLP(w io.Writer, b []byte) {
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(len(b)))
	w.Write(l[:])
	w.Write(b)
}

// TenantKey builds a state key that starts with the tenant:
// tenant 0x00 part 0x00 part… It returns ErrNoTenant for an empty tenant.
//
// Inside a part, 0x00 is written 0x01 0x01 and 0x01 is written 0x01 0x02,
// so the key is injective: response "a\x00b" with item "c" and response
// "a" with item "b\x00c" (ids are any strings) get two keys, and the key
// of parts ending in "" is a prefix of the keys of exactly those parts
// followed by more: a scan of one response's rows never meets another's.
// Parts without those bytes are written as they are, and the escaping
// keeps the order of the parts.
func TenantKey(tenant string, parts ...string) ([]byte, error) {
	if tenant == "" {
		return nil, ErrNoTenant
	}
	n := len(tenant)
	for _, p := range parts {
		n += 1 + len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, tenant...)
	for _, p := range parts {
		b = appendKeyPart(append(b, 0), p)
	}
	return b, nil
}

// appendKeyPart appends p to b escaped as TenantKey says.
func appendKeyPart(b []byte, p string) []byte {
	i := 0
	for ; i < len(p) && p[i] > 0x01; i++ {
	}
	if i == len(p) {
		return append(b, p...)
	}
	b = append(b, p[:i]...)
	for ; i < len(p); i++ {
		switch c := p[i]; c {
		case 0x00, 0x01:
			b = append(b, 0x01, c+1)
		default:
			b = append(b, c)
		}
	}
	return b
}
