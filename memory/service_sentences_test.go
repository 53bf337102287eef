package memory

import (
	"strconv"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/memory/embed/use"
)

// TestServiceSentenceEncoderKeepsTenantsApart runs the memory service on
// a real embedded server as serve --embed-sentences does: the shipped
// sentence encoder (memory/embed/use) as its embedder, whose vectors each
// write records, and the shipped word vectors as its matcher. A
// paraphrased question finds its user's record, and never a record of
// another tenant or another user of the same tenant, though those say
// the very thing asked about; each record has one vector, of the
// encoder, for its current version, under its own owner's keys.
func TestServiceSentenceEncoderKeepsTenantsApart(t *testing.T) {
	pe := productEncoders(t)
	e, r := serveTenantsApart(t, pe.embedder, pe.matcher)
	// one vector per record, of the encoder, for its current version,
	// under its own owner's keys
	v := r.View()
	defer v.Close()
	for _, o := range [][2]string{{"acme", "u1"}, {"acme", "u2"}, {"globex", "u1"}} {
		recs, err := e.List(v, o[0], o[1], false)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		if err := v.Scan(keysFor(o[0], o[1]).vecs(), func(key, value []byte) error {
			var x vector
			if err := decodeInto(value, &x); err != nil {
				return err
			}
			id := keysFor(o[0], o[1]).lastComponent(key)
			if x.Model != use.Model || len(x.Vector) != use.Dim || !strings.HasPrefix(id, o[0]+"-"+o[1]+"-") {
				t.Errorf("%s/%s: vector %s of model %s, %d dimensions", o[0], o[1], id, x.Model, len(x.Vector))
			}
			got[id+"@"+strconv.Itoa(x.Version)] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(recs) {
			t.Errorf("%s/%s: %d vectors for %d records", o[0], o[1], len(got), len(recs))
		}
		for _, rec := range recs {
			if !got[rec.ID+"@"+strconv.Itoa(rec.Version)] {
				t.Errorf("%s/%s: no vector for %s v%d", o[0], o[1], rec.ID, rec.Version)
			}
		}
	}
}
