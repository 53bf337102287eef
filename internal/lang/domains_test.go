package lang

import (
	"strings"
	"testing"
)

// domainsOfOurSets are the domains the verifier's and memory's own labelled
// sets are written in (verifier/check/testdata/README.md lists them): orders and
// shops, shipping and parcels, flights and travel, hotels and bookings,
// weather, inventory, clinics and appointments, meetings, stock quotes,
// baseball, support tickets, rentals. A class of the language data named
// after one of them would fit those sets and no stranger's, so none may be.
var domainsOfOurSets = []string{
	"order", "shop", "store", "retail", "cart", "checkout",
	"ship", "shipping", "shipment", "parcel", "package", "courier", "logistics", "warehouse", "delivery",
	"flight", "airline", "travel", "hotel", "booking", "reservation", "room", "rental",
	"weather", "forecast", "inventory", "clinic", "hospital", "doctor", "appointment", "meeting",
	"quote", "baseball", "game", "ticket",
	"订单", "快递", "物流", "航班", "酒店", "天气", "库存", "门诊", "医院", "预约",
}

// namesADomain returns the domain a class name or key word names, or "".
// A name names a domain when one of its parts (split at "/", "_", "-" and
// spaces) is the domain or its plural, or, in Chinese, holds it.
func namesADomain(name string) string {
	for _, d := range domainsOfOurSets {
		if IsCJK([]rune(d)[0]) {
			if strings.Contains(name, d) {
				return d
			}
			continue
		}
		for _, p := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
			return r == '/' || r == '_' || r == '-' || r == ' '
		}) {
			if p == d || p == d+"s" || p == d+"es" {
				return d
			}
		}
	}
	return ""
}

// TestNoTableNamesADomain is the rule that a domain is data: the classes
// of the closed categories (the status vocabularies: progress, settlement,
// confirmation, approval, outcome, readiness …), every class the category
// rules name, the words JSON keys are read by (keys.txt), the nouns
// before an identifier and what an ordinal counts are generic, so a new
// domain is new words under them, never a new class. It fails naming the
// line that names one of the domains our own sets use.
func TestNoTableNamesADomain(t *testing.T) {
	d := Default()
	check := func(l Line, what, name string) {
		t.Helper()
		if dom := namesADomain(name); dom != "" {
			t.Errorf("%s:%d: %s %q names the domain %q of our own test sets; name the kind of state instead", l.File, l.No, what, name, dom)
		}
	}
	for _, sec := range d.sectionsOfKind("category") {
		for _, l := range d.Lines(sec) {
			class, _, _ := strings.Cut(l.Name, "/")
			check(l, "category class", class)
		}
	}
	for _, sec := range []string{"category covers", "category traits"} {
		for _, l := range d.Lines(sec) {
			for _, w := range append([]string{l.Name}, l.Words...) {
				class, _, _ := strings.Cut(w, "/")
				check(l, "category class", class)
			}
		}
	}
	for _, sec := range []string{"generic keys", "state key words", "id words", "change key words", "duration words",
		"last only units", "subject keys", "subject key suffixes", "unit keys", "money key words", "class nouns", "ordinal nouns"} {
		if len(d.Lines(sec)) == 0 {
			t.Fatalf("no section [%s]", sec)
		}
		for _, l := range d.Lines(sec) {
			for _, w := range l.Words {
				check(l, "["+sec+"] word", w)
			}
		}
	}
	for _, l := range d.Lines("ordinal nouns") {
		check(l, "[ordinal nouns] concept", l.Name) // what an ordinal counts is no domain's
	}
}

// TestNamesADomain: the rule itself catches a class or key word of a
// domain, singular, plural, inside a compound or in Chinese, and lets a
// generic one through.
func TestNamesADomain(t *testing.T) {
	for _, name := range []string{"order", "orders", "flight_min", "weather", "booking", "订单号", "hotel-room", "shipments"} {
		if namesADomain(name) == "" {
			t.Errorf("%q: no domain found", name)
		}
	}
	for _, name := range []string{"progress", "settlement", "approval", "readiness", "duration", "subtotal", "编号", "reorder_point"} {
		if d := namesADomain(name); d != "" {
			t.Errorf("%q: names %q", name, d)
		}
	}
}
