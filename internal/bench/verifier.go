package bench

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/toolstream/toolstream/verifier"
)

// VerifierFixture returns a large evidence set (an inventory of 340 items
// and a customer's 120 orders) and a 10 KiB answer about it, in English
// and Chinese, with supported, contradicted and unsupported claims.
// verifier/check's BenchmarkCheck uses it too.
func VerifierFixture() ([]verifier.Evidence, string) {
	type item struct {
		SKU      string  `json:"sku"`
		Name     string  `json:"name"`
		Stock    int     `json:"stock"`
		InStock  bool    `json:"in_stock"`
		Price    float64 `json:"price"`
		Currency string  `json:"currency"`
		WeightKG float64 `json:"weight_kg"`
		Rating   float64 `json:"rating"`
		City     string  `json:"warehouse"`
		Restock  string  `json:"next_restock"`
		Desc     string  `json:"description"`
	}
	cities := []string{"Shanghai", "Denver", "Berlin", "Osaka", "Lyon"}
	var items []item
	for i := 0; i < 340; i++ {
		stock := (i * 37) % 90
		items = append(items, item{
			SKU: fmt.Sprintf("SKU-%04d", i), Name: fmt.Sprintf("Widget %d", i), Stock: stock, InStock: stock > 0,
			Price: float64((i*713)%40000)/100 + 1, Currency: "USD", WeightKG: float64((i*17)%500)/100 + 0.1,
			Rating: float64(30+(i*7)%20) / 10, City: cities[i%len(cities)],
			Restock: fmt.Sprintf("2024-05-%02d", 4+i%20), Desc: fmt.Sprintf("Ships in %d-%d business days.", 2+i%3, 4+i%3),
		})
	}
	inv, _ := json.Marshal(map[string]any{"warehouse_count": len(cities), "items": items})
	type order struct {
		ID     string  `json:"order_id"`
		Status string  `json:"status"`
		Total  float64 `json:"total"`
		ETA    string  `json:"eta"`
	}
	statuses := []string{"processing", "shipped", "in_transit", "delivered", "cancelled"}
	var orders []order
	for i := 0; i < 120; i++ {
		orders = append(orders, order{ID: fmt.Sprintf("ORD-%05d", 10000+i), Status: statuses[i%5], Total: float64((i*991)%90000)/100 + 5, ETA: fmt.Sprintf("2024-05-%02d", 3+i%10)})
	}
	ord, _ := json.Marshal(map[string]any{"customer": "Dana Lee", "orders": orders})
	ev := []verifier.Evidence{{CallID: "inv", Name: "get_inventory", Result: inv}, {CallID: "ord", Name: "list_orders", Result: ord}}

	var b strings.Builder
	b.WriteString("Hello! Here is what I found.\n")
	for i := 0; b.Len() < 10*1024; i++ {
		it := items[(i*7)%len(items)]
		switch i % 8 {
		case 0:
			fmt.Fprintf(&b, "%s has %d units in stock. ", it.Name, it.Stock)
		case 1:
			fmt.Fprintf(&b, "%s costs $%.2f and weighs %.2f kg. ", it.Name, it.Price, it.WeightKG+float64(i%2))
		case 2:
			fmt.Fprintf(&b, "商品 %s 库存 %d 件，售价 %.2f 美元。", it.Name, it.Stock+i%3, it.Price)
		case 3:
			o := orders[i%len(orders)]
			fmt.Fprintf(&b, "Order %s has shipped and should arrive tomorrow. ", o.ID)
		case 4:
			fmt.Fprintf(&b, "%s is rated %.1f stars and ships from %s. ", it.Name, it.Rating, it.City)
		case 5:
			fmt.Fprintf(&b, "%s will definitely be restocked next week. ", it.Name)
		case 6:
			fmt.Fprintf(&b, "%s ships in 2 to 4 business days. ", it.Name)
		case 7:
			b.WriteString("Let me know if you need anything else!\n")
		}
	}
	return ev, b.String()
}

// VerifierResult is the cost of checking one answer against its evidence
// as the verifier projection pays it, and of one JSON decode of that
// evidence.
type VerifierResult struct {
	Claims        int // claims in the answer
	EvidenceBytes int
	IndexBytes    int // the evidence's indexes as the projection keeps them
	// Check is the cost of one answer: reading its evidence's indexes back
	// and checking every claim. Decode is one encoding/json decode of the
	// evidence into any. Medians of the rounds, measured alternately.
	Check, Decode time.Duration
	// Index is the cost of indexing the evidence, paid once when each
	// result arrives; Cold is Check with that indexing, once per answer
	// (toolstream verify, which has no index kept). Medians of the rounds,
	// measured in the same turns as Check and Decode.
	Index, Cold time.Duration
	Rounds      int
}

// Verifier checks VerifierFixture's answer rounds times with the default
// checker against the evidence's kept indexes, indexes the evidence and
// checks the answer cold, in blocks taking turns with blocks of JSON
// decodes of the evidence, and reports the medians.
func Verifier(rounds int) (VerifierResult, error) {
	rounds = max(rounds, 1)
	ev, answer := VerifierFixture()
	res := VerifierResult{Claims: len(verifier.SplitClaims(answer)), Rounds: rounds}
	stored := make([][]byte, len(ev))
	for i, e := range ev {
		res.EvidenceBytes += len(e.Result)
		b, err := verifier.IndexEvidence(e).MarshalBinary()
		if err != nil {
			return res, err
		}
		stored[i] = b
		res.IndexBytes += len(b)
	}
	c := verifier.NewChecker(verifier.CheckerConfig{})
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	check := func() error {
		idx := make([]*verifier.EvidenceIndex, len(stored))
		for i, b := range stored {
			x, err := verifier.UnmarshalEvidenceIndex(b, ev[i].Result)
			if err != nil {
				return err
			}
			idx[i] = x
		}
		_, err := c.CheckIndexed(answer, idx, now)
		return err
	}
	decode := func() error {
		for _, e := range ev {
			var v any
			if err := json.Unmarshal(e.Result, &v); err != nil {
				return err
			}
		}
		return nil
	}
	timed := func(f func() error) (time.Duration, error) {
		start := time.Now()
		err := f()
		return time.Since(start), err
	}
	if err := check(); err != nil { // warm up
		return res, err
	}
	index := func() error {
		for _, e := range ev {
			verifier.IndexEvidence(e)
		}
		return nil
	}
	cold := func() error { c.Check(answer, ev, now); return nil }
	// Blocks of each in turn, so that all four see the same machine and
	// each pays for collecting its own garbage; the medians of the blocks.
	// NB: the indexing and the cold check are timed in the same turns as
	// the decode they are set against; timed after all the decodes, one
	// sample a block, their ratios moved 4x between runs of a shared
	// machine (3.7x to 28x one decode, cold).
	const block = 10
	var checks, decodes, indexes, colds []time.Duration
	for i := 0; i < rounds; i += block {
		n := min(block, rounds-i)
		for _, m := range []struct {
			f   func() error
			out *[]time.Duration
		}{{decode, &decodes}, {check, &checks}, {index, &indexes}, {cold, &colds}} {
			d, err := timed(func() error { return repeat(n, m.f) })
			if err != nil {
				return res, err
			}
			*m.out = append(*m.out, d/time.Duration(n))
		}
	}
	res.Check, res.Decode = Percentile(checks, 50), Percentile(decodes, 50)
	res.Index, res.Cold = Percentile(indexes, 50), Percentile(colds, 50)
	return res, nil
}

func repeat(n int, f func() error) error {
	for range n {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}
