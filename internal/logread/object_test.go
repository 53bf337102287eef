package logread_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/logread"
)

// TestObjectByDirectGets: objects of several sizes, written interleaved
// into one bucket with small chunks, read back by logread.Object equal to
// what nats.go's consumer-based Get reads; one put again is read at its
// last content, a deleted one and one never written are ErrNoMessage, an
// empty one is empty, and one whose chunk was removed is ErrBadObject.
// The read leaves no consumer on the bucket's stream.
func TestObjectByDirectGets(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	obs, err := b.JS.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "objs"})
	if err != nil {
		t.Fatal(err)
	}
	content := func(name string, n int) []byte {
		return bytes.Repeat([]byte(name+"|"), n)[:n]
	}
	put := func(name string, data []byte) *jetstream.ObjectInfo {
		t.Helper()
		info, err := obs.Put(ctx, jetstream.ObjectMeta{Name: name, Opts: &jetstream.ObjectMetaOptions{ChunkSize: 1000}}, bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	// Interleaved: each object's chunks are between another's.
	sizes := map[string]int{"a": 999, "b": 1000, "c.with/dots and spaces": 1001, "d": 25_000, "again": 4000, "gone": 3000, "cut": 5000}
	for _, name := range []string{"a", "b", "c.with/dots and spaces", "d", "again", "gone", "cut"} {
		put(name, content(name, sizes[name]))
	}
	put("again", content("second", 2500))
	put("empty", nil)
	if err := obs.Delete(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	cut, err := obs.GetInfo(ctx, "cut")
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.JS.Stream(ctx, "OBJ_objs")
	if err != nil {
		t.Fatal(err)
	}
	chunk, err := st.GetMsg(ctx, 1, jetstream.WithGetMsgSubject("$O.objs.C."+cut.NUID))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteMsg(ctx, chunk.Sequence); err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, tc := range []struct {
		name string
		want []byte
		err  error
	}{
		{"a", content("a", 999), nil},
		{"b", content("b", 1000), nil},
		{"c.with/dots and spaces", content("c.with/dots and spaces", 1001), nil},
		{"d", content("d", 25_000), nil},
		{"again", content("second", 2500), nil},
		{"empty", []byte{}, nil},
		{"gone", nil, logread.ErrNoMessage},
		{"never", nil, logread.ErrNoMessage},
		{"cut", nil, logread.ErrBadObject},
	} {
		data, err := logread.Object(ctx, logread.Config{Conn: b.Conn, BatchMax: 7}, "objs", tc.name)
		switch {
		case tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.err)
		case tc.err == nil && (err != nil || !bytes.Equal(data, tc.want)):
			t.Errorf("%s: %d bytes, %v; want %d", tc.name, len(data), err, len(tc.want))
		case tc.err == nil && len(tc.want) > 0:
			got[tc.name] = data
		}
	}
	if _, err := logread.Object(ctx, logread.Config{Conn: b.Conn}, "nobucket", "a"); err == nil {
		t.Error("an object of a bucket that does not exist was read")
	}
	if n := consumers(ctx, t, st); n != 0 {
		t.Errorf("the reads left %d consumers on the bucket", n)
	}
	for name, data := range got {
		viaConsumer, err := obs.GetBytes(ctx, name)
		if err != nil || !bytes.Equal(viaConsumer, data) {
			t.Errorf("%s: nats.go's Get: %d bytes, %v; logread.Object %d", name, len(viaConsumer), err, len(data))
		}
	}
}

func consumers(ctx context.Context, t *testing.T, st jetstream.Stream) int {
	t.Helper()
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Consumers
}
