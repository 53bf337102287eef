package evidence

import (
	"testing"
	"time"
)

// The cache of a text's numbers and dates keeps the two modes apart for
// every text: it was keyed by the text (dates) or 0x00 + the text
// (numbers only), so a text starting with 0x00 read for dates and its
// tail read for numbers shared one entry.
func TestTextItemsCacheKeepsModesApart(t *testing.T) {
	now := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	w := Walker{Ix: NewIndex(0), Now: now}
	const tail = "ships on June 3, 2024 for 25 dollars"
	withDates := w.TextItems("\x00"+tail, true)
	numbers := w.TextItems(tail, false)
	hasDate := func(items []TextItem) bool {
		for _, it := range items {
			if it.Date {
				return true
			}
		}
		return false
	}
	if !hasDate(withDates) {
		t.Fatalf("no date found in %q: pick a text with one", tail)
	}
	if hasDate(numbers) {
		t.Fatalf("numbers only of %q came back with the dates of %q", tail, "\x00"+tail)
	}
}
