package check

import (
	"bytes"
	"encoding/json"
	"github.com/toolstream/toolstream/verifier/evidence"
	"math/rand/v2"
	"testing"
	"time"
)

// Every result of the labelled set, indexed on its own, encoded and read
// back, encodes to the same bytes, and the answer checked against the
// parts read back gets the report Check gives.
func TestPartRoundTrip(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	for _, cc := range checkedSet(t) {
		now, _ := time.Parse(time.RFC3339, cc.rc.Now)
		var parts []*evidence.Part
		var failed []evidence.Evidence
		for _, e := range cc.rc.Evidences() {
			if e.Failed != nil {
				failed = append(failed, e)
				continue
			}
			b, err := evidence.MarshalPart(evidence.IndexResult(e, evidence.LeavesMax))
			if err != nil {
				t.Fatalf("%s: %v", cc.rc.Name, err)
			}
			p, err := evidence.UnmarshalPart(b, func() ([]byte, error) { return e.Result, nil })
			if err != nil {
				t.Fatalf("%s: %v", cc.rc.Name, err)
			}
			b2, err := evidence.MarshalPart(p)
			if err != nil || !bytes.Equal(b, b2) {
				t.Fatalf("%s %s: read back, the part encodes to other bytes (%v)", cc.rc.Name, e.CallID, err)
			}
			p.Ev.At, p.Ev.FreshFor = e.At, e.FreshFor // kept beside the index, not in it
			parts = append(parts, p)
		}
		ix, err := evidence.Join(parts, now)
		if err != nil {
			t.Fatal(err)
		}
		ix.Failed = failed
		got, _ := json.Marshal(c.check(cc.rc.Answer, ix, now))
		want, _ := json.Marshal(cc.rep)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: report from decoded parts differs:\n%s\n%s", cc.rc.Name, got, want)
		}
	}
}

// A damaged encoding is an error, never a panic or a part that reads past
// its data.
func TestPartCorrupt(t *testing.T) {
	e := evidence.Evidence{CallID: "c", Name: "get_stock", Result: json.RawMessage(`{"items":[{"name":"Alpha","stock":12,"price":5.5,"eta":"Friday","note":"ships on June 3, 3-5 days"},{"name":"Bravo","stock":0,"in_stock":false,"status":"shipped"}]}`)}
	b, err := evidence.MarshalPart(evidence.IndexResult(e, evidence.LeavesMax))
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(b) {
		if _, err := evidence.UnmarshalPart(b[:n], nil); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(b))
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		d := bytes.Clone(b)
		for range 1 + rng.IntN(3) {
			d[rng.IntN(len(d))] = byte(rng.IntN(256))
		}
		p, err := evidence.UnmarshalPart(d, nil)
		if err == nil {
			// Bytes that still read as a part must be one Check can use.
			ix, err := evidence.Join([]*evidence.Part{p}, time.Now())
			if err == nil {
				NewChecker(CheckerConfig{}).check("Alpha has 12 in stock and ships Friday. Bravo is out of stock.", ix, time.Now())
			}
		}
	}
	if _, err := evidence.UnmarshalPart(append([]byte{evidence.PartFormat + 1}, b[1:]...), nil); err != evidence.ErrPartFormat {
		t.Fatalf("another format: %v", err)
	}
}

// TestPartStampNamesTheLanguageData: a part's bytes begin with the
// format's version and the language data's digest, and a part stamped
// with other data (the same bytes, one bit of the digest flipped) is of
// another format: its result is indexed again.
func TestPartStampNamesTheLanguageData(t *testing.T) {
	e := evidence.Evidence{CallID: "c", Name: "get_stock", Result: json.RawMessage(`{"name":"Alpha","stock":12}`)}
	b, err := evidence.MarshalPart(evidence.IndexResult(e, evidence.LeavesMax))
	if err != nil {
		t.Fatal(err)
	}
	d := evidence.LangData.Digest()
	stamp := evidence.PartStamp()
	if want := append([]byte{evidence.PartFormat}, d[:len(stamp)-1]...); !bytes.Equal(stamp, want) || !bytes.HasPrefix(b, stamp) {
		t.Fatalf("stamp %x, part begins %x; want %x", stamp, b[:min(len(b), len(want))], want)
	}
	if _, err := evidence.UnmarshalPart(b, nil); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(stamp); i++ {
		other := bytes.Clone(b)
		other[i] ^= 1
		if _, err := evidence.UnmarshalPart(other, nil); err != evidence.ErrPartFormat {
			t.Fatalf("data digest byte %d changed: %v, want ErrPartFormat", i, err)
		}
	}
}
