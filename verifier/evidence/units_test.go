package evidence

import (
	"math"
	"testing"
)

func TestConvert(t *testing.T) {
	tests := []struct {
		v        float64
		from, to *Unit
		want     float64
	}{
		{1, UKG, UG, 1000},
		{2.2046226218, ULB, UKG, 1},
		{10, UJin, UKG, 5},
		{1, UMI, UKM, 1.609344},
		{68, UF, UC, 20},
		{-40, UC, UF, -40},
		{90, UMin, UHour, 1.5},
		{2, UDay, UHour, 48},
		{12.5, UPercent, UFrac, 0.125},
		{18, UKMH, UMPS, 5},
	}
	for _, tt := range tests {
		got, ok := Convert(tt.v, tt.from, tt.to)
		if !ok || math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("convert(%v %s → %s) = %v, %v; want %v", tt.v, tt.from.Name, tt.to.Name, got, ok, tt.want)
		}
	}
	if _, ok := Convert(1, UUSD, UEUR); ok {
		t.Error("currencies must not convert")
	}
	if _, ok := Convert(1, UKG, UKM); ok {
		t.Error("kg must not convert to km")
	}
}

func TestCompatibleCurrencies(t *testing.T) {
	money := &Unit{Name: "money", Dim: DimCurrency, Factor: 1}
	tests := []struct {
		a, b *Unit
		want bool
	}{
		{UDollar, UUSD, true},
		{UYen, UCNY, true},
		{UYen, UJPY, true},
		{UEUR, UUSD, false},
		{UCNY, UUSD, false},
		{money, UEUR, true},
		{UKG, ULB, true},
		{UKG, UUSD, false},
		{nil, UUSD, true},
	}
	for _, tt := range tests {
		if got := Compatible(tt.a, tt.b); got != tt.want {
			t.Errorf("compatible(%v, %v) = %v", tt.a, tt.b, got)
		}
	}
}

func TestKeyUnit(t *testing.T) {
	tests := []struct {
		key      string
		siblings map[string]any
		want     *Unit
		dim      Dimension
	}{
		{"weight_kg", nil, UKG, DimMass},
		{"temp_f", nil, UF, DimTemp},
		{"eta_minutes", nil, UMin, DimTime},
		{"duration_min", nil, UMin, DimTime},
		{"transit_days_min", nil, UDay, DimTime},
		{"price_usd", nil, UUSD, DimCurrency},
		{"additional_fee_per_kg", nil, nil, DimCurrency},
		{"price", map[string]any{"currency": "EUR"}, UEUR, DimCurrency},
		{"stock", map[string]any{"currency": "EUR"}, nil, DimCount},
		{"first_weight_fee", nil, nil, DimCurrency},
		{"total_qty", nil, nil, DimCount},
		{"snowfall_in", nil, UInch, DimLength},
		{"checkin", nil, nil, DimNone},
	}
	for _, tt := range tests {
		u, d := KeyUnit(tt.key, ConceptsOf(tt.key), tt.siblings)
		if tt.want != nil && u != tt.want || d != tt.dim {
			t.Errorf("keyUnit(%q) = %v, %d; want %v, %d", tt.key, u, d, tt.want, tt.dim)
		}
	}
}
