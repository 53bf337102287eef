package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// Test stores: a real Pebble (in memory or on disk) with a tiny
// projector.Writer over an indexed batch, as the projector will supply, and
// a sorted map for examples and cross-checks.

type quietLogger struct{}

func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

// openPebble opens a Pebble store in dir, or in memory when dir is "".
func openPebble(t testing.TB, dir string) *pebble.DB {
	t.Helper()
	opts := &pebble.Options{Logger: quietLogger{}}
	if dir == "" {
		opts.FS = vfs.NewMem()
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// rw adapts a pebble.Reader (a DB, or an indexed batch that also writes) to
// projector.Writer.
type rw struct {
	r pebble.Reader
	b *pebble.Batch // nil: read-only
}

var _ projector.Writer = rw{}

func (s rw) Get(key []byte) ([]byte, bool, error) {
	v, closer, err := s.r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer closer.Close()
	return bytes.Clone(v), true, nil
}

func (s rw) Scan(prefix []byte, fn func(key, value []byte) error) error {
	it, err := s.r.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			_ = it.Close()
			return err
		}
		if err := fn(it.Key(), v); err != nil {
			_ = it.Close()
			return err
		}
	}
	return it.Close()
}

func (s rw) Set(key, value []byte) error { return s.b.Set(key, value, nil) }
func (s rw) Delete(key []byte) error     { return s.b.Delete(key, nil) }

func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// pebbleStore applies each event in its own committed batch, as the
// projector does.
type pebbleStore struct {
	db *pebble.DB
}

func newPebbleStore(t testing.TB) *pebbleStore { return &pebbleStore{db: openPebble(t, "")} }

func (s *pebbleStore) apply(e *Engine, ev *events.Event) error {
	b := s.db.NewIndexedBatch()
	if err := e.Apply(rw{r: b, b: b}, ev); err != nil {
		_ = b.Close()
		return err
	}
	return b.Commit(pebble.NoSync)
}

func (s *pebbleStore) reader() projector.Reader { return rw{r: s.db} }

// dump returns every key of the store in its canonical text form.
func dumpReader(r projector.Reader, prefix string) string {
	var b strings.Builder
	_ = r.Scan([]byte(prefix), func(k, v []byte) error {
		b.WriteString(FormatEntry(k, v))
		b.WriteByte('\n')
		return nil
	})
	return b.String()
}

// rawReader returns every key and value of the store, as bytes.
func rawContains(r projector.Reader, needle []byte) (string, bool) {
	var where string
	_ = r.Scan(nil, func(k, v []byte) error {
		if bytes.Contains(bytes.ToLower(k), needle) || bytes.Contains(bytes.ToLower(v), needle) {
			where = string(k)
			return io.EOF
		}
		return nil
	})
	return where, where != ""
}

// mapStore is a sorted in-memory projector.Writer.
type mapStore struct {
	m      map[string][]byte
	sorted []string // keys of m, sorted; nil when stale
}

func newMapStore() *mapStore { return &mapStore{m: map[string][]byte{}} }

func (s *mapStore) Get(key []byte) ([]byte, bool, error) {
	v, ok := s.m[string(key)]
	return bytes.Clone(v), ok, nil
}

func (s *mapStore) Scan(prefix []byte, fn func(key, value []byte) error) error {
	if s.sorted == nil {
		s.sorted = make([]string, 0, len(s.m))
		for k := range s.m {
			s.sorted = append(s.sorted, k)
		}
		sort.Strings(s.sorted)
	}
	p := string(prefix)
	for i := sort.SearchStrings(s.sorted, p); i < len(s.sorted) && strings.HasPrefix(s.sorted[i], p); i++ {
		if err := fn([]byte(s.sorted[i]), s.m[s.sorted[i]]); err != nil {
			return err
		}
	}
	return nil
}

func (s *mapStore) Set(key, value []byte) error {
	if _, ok := s.m[string(key)]; !ok {
		s.sorted = nil
	}
	s.m[string(key)] = bytes.Clone(value)
	return nil
}

func (s *mapStore) Delete(key []byte) error {
	if _, ok := s.m[string(key)]; ok {
		s.sorted = nil
		delete(s.m, string(key))
	}
	return nil
}

// txStore applies an event to a mapStore atomically: a failed Apply leaves
// nothing behind.
func (s *mapStore) apply(e *Engine, ev *events.Event) error {
	tx := &mapTx{base: s, w: map[string][]byte{}, del: map[string]bool{}}
	if err := e.Apply(tx, ev); err != nil {
		return err
	}
	s.commit(tx)
	return nil
}

func (s *mapStore) commit(tx *mapTx) {
	for k := range tx.del {
		_ = s.Delete([]byte(k))
	}
	for k, v := range tx.w {
		_ = s.Set([]byte(k), v)
	}
}

// mapTx buffers writes over a mapStore (reads see them).
type mapTx struct {
	base *mapStore
	w    map[string][]byte
	del  map[string]bool
}

func (t *mapTx) Get(key []byte) ([]byte, bool, error) {
	k := string(key)
	if v, ok := t.w[k]; ok {
		return bytes.Clone(v), true, nil
	}
	if t.del[k] {
		return nil, false, nil
	}
	return t.base.Get(key)
}

func (t *mapTx) Scan(prefix []byte, fn func(key, value []byte) error) error {
	merged := map[string][]byte{}
	_ = t.base.Scan(prefix, func(k, v []byte) error { merged[string(k)] = v; return nil })
	for k := range t.del {
		delete(merged, k)
	}
	for k, v := range t.w {
		if strings.HasPrefix(k, string(prefix)) {
			merged[k] = v
		}
	}
	ks := make([]string, 0, len(merged))
	for k := range merged {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		if err := fn([]byte(k), merged[k]); err != nil {
			return err
		}
	}
	return nil
}

func (t *mapTx) Set(key, value []byte) error {
	delete(t.del, string(key))
	t.w[string(key)] = bytes.Clone(value)
	return nil
}

func (t *mapTx) Delete(key []byte) error {
	delete(t.w, string(key))
	t.del[string(key)] = true
	return nil
}

// recorder is a Writer that records every key written, for invariant 7.
type recorder struct {
	projector.Writer
	keys []string
}

func (r *recorder) Set(key, value []byte) error {
	r.keys = append(r.keys, string(key))
	return r.Writer.Set(key, value)
}

func (r *recorder) Delete(key []byte) error {
	r.keys = append(r.keys, string(key))
	return r.Writer.Delete(key)
}

// TestDecodeVectorIsMsgpack: decodeVector reads what encode writes as
// msgpack does, and hands every other form to msgpack (a vector field
// of nil, float64 elements, a truncated value, fields in another
// order): the same vector or the same error.
func TestDecodeVectorIsMsgpack(t *testing.T) {
	long := make([]float32, 512)
	for i := range long {
		long[i] = float32(i)/7 - 30
	}
	values := [][]byte{
		encode(&vector{Version: 1, Model: "toolstream-use-lite-int8/1", Vector: long}),
		encode(&vector{Version: 200, Model: strings.Repeat("m", 40), Vector: long[:3]}),
		encode(&vector{Version: 3, Model: "", Vector: long[:20]}),
		encode(&vector{Version: 3, Model: "x"}),
		encode(&vector{Version: 1, Model: "x", Vector: []float32{}}),
		encode(map[string]any{"x": []float64{1, 2}, "m": "x", "v": 2}),
		encode(map[string]any{"v": 1, "m": "x", "x": []float32{1}, "z": 1}),
		{0x83, 0xa1, 'v', 0x01},
		{},
	}
	full := values[0]
	values = append(values, full[:len(full)-1], append(slices.Clone(full), 0))
	for i, b := range values {
		got, gerr := decodeVector(b)
		var want vector
		werr := decodeInto(b, &want)
		if (gerr != nil) != (werr != nil) || gerr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("value %d (% x...): got %+v, %v; msgpack %+v, %v", i, b[:min(len(b), 8)], got, gerr, want, werr)
		}
		if _, ok := readVector(b); ok != (i < 5 && i != 3) { // 3: a nil vector
			t.Errorf("value %d: read directly %v, want %v", i, ok, !ok)
		}
	}
}
