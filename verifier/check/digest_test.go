package check

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/verifier/check/checktest"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// DigestBenchFixture is bench.VerifierFixture, set by the external test
// package (internal/bench imports the verifier, which imports check).
var DigestBenchFixture func() ([]evidence.Evidence, string)

// TestDigests writes, for every case of the labelled set, the held-out sets
// heldout..heldout6, 600 generated cases and the bench fixture, the sha256
// of each evidence part's bytes and of the report of a cold and a warm
// check, one line a case, to the file VERIFIER_DIGESTS names (skipped
// without it). A speed change keeps the file equal: run it before and
// after, and diff.
func TestDigests(t *testing.T) {
	out := os.Getenv("VERIFIER_DIGESTS")
	if out == "" {
		t.Skip("VERIFIER_DIGESTS names no file")
	}
	c := NewChecker(CheckerConfig{})
	var b strings.Builder
	digest := func(name, answer string, ev []evidence.Evidence, now time.Time) {
		h := sha256.New()
		idx := make([]*evidence.EvidenceIndex, len(ev))
		for i, e := range ev {
			data, err := evidence.IndexEvidence(e).MarshalBinary()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			h.Write(data)
			if idx[i], err = evidence.UnmarshalEvidenceIndex(data, e.Result); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		cold, err := json.Marshal(c.Check(answer, ev, now))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := c.CheckIndexed(answer, idx, now)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		warm, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		sum := func(p []byte) string { s := sha256.Sum256(p); return hex.EncodeToString(s[:8]) }
		fmt.Fprintf(&b, "%s parts=%s cold=%s warm=%s\n", name, hex.EncodeToString(h.Sum(nil)[:8]), sum(cold), sum(warm))
	}
	parse := func(name, s string) time.Time {
		now, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatalf("%s: now: %v", name, err)
		}
		return now
	}
	for _, rc := range loadCases(t) {
		digest(rc.File+"/"+rc.Name, rc.Answer, rc.Evidences(), parse(rc.Name, rc.Now))
	}
	for _, set := range []string{"heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6"} {
		for _, hc := range checktest.Load(t, filepath.Join("testdata", set)) {
			digest(set+"/"+hc.Name, hc.Answer, hc.Evidences(), parse(hc.Name, hc.Now))
		}
	}
	g := &gen{r: rand.New(rand.NewPCG(1, 0x70015))}
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for i := range 600 {
		lang := "en"
		if i%3 == 2 {
			lang = "zh"
		}
		gc := g.makeCase(lang)
		digest(fmt.Sprintf("generated/%d", i), gc.answer, []evidence.Evidence{{CallID: "c1", Name: gc.tool, Version: 1, Result: json.RawMessage(gc.evs)}}, now)
	}
	ev, answer := DigestBenchFixture()
	digest("bench", answer, ev, time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC))
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
