package check

import (
	"math"
	"testing"
)

func TestConvert(t *testing.T) {
	tests := []struct {
		v        float64
		from, to *unit
		want     float64
	}{
		{1, uKG, uG, 1000},
		{2.2046226218, uLB, uKG, 1},
		{10, uJin, uKG, 5},
		{1, uMI, uKM, 1.609344},
		{68, uF, uC, 20},
		{-40, uC, uF, -40},
		{90, uMin, uHour, 1.5},
		{2, uDay, uHour, 48},
		{12.5, uPercent, uFrac, 0.125},
		{18, uKMH, uMPS, 5},
	}
	for _, tt := range tests {
		got, ok := convert(tt.v, tt.from, tt.to)
		if !ok || math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("convert(%v %s → %s) = %v, %v; want %v", tt.v, tt.from.name, tt.to.name, got, ok, tt.want)
		}
	}
	if _, ok := convert(1, uUSD, uEUR); ok {
		t.Error("currencies must not convert")
	}
	if _, ok := convert(1, uKG, uKM); ok {
		t.Error("kg must not convert to km")
	}
}

func TestCompatibleCurrencies(t *testing.T) {
	money := &unit{name: "money", dim: dimCurrency, factor: 1}
	tests := []struct {
		a, b *unit
		want bool
	}{
		{uDollar, uUSD, true},
		{uYen, uCNY, true},
		{uYen, uJPY, true},
		{uEUR, uUSD, false},
		{uCNY, uUSD, false},
		{money, uEUR, true},
		{uKG, uLB, true},
		{uKG, uUSD, false},
		{nil, uUSD, true},
	}
	for _, tt := range tests {
		if got := compatible(tt.a, tt.b); got != tt.want {
			t.Errorf("compatible(%v, %v) = %v", tt.a, tt.b, got)
		}
	}
}

func TestKeyUnit(t *testing.T) {
	tests := []struct {
		key      string
		siblings map[string]any
		want     *unit
		dim      dimension
	}{
		{"weight_kg", nil, uKG, dimMass},
		{"temp_f", nil, uF, dimTemp},
		{"eta_minutes", nil, uMin, dimTime},
		{"duration_min", nil, uMin, dimTime},
		{"transit_days_min", nil, uDay, dimTime},
		{"price_usd", nil, uUSD, dimCurrency},
		{"additional_fee_per_kg", nil, nil, dimCurrency},
		{"price", map[string]any{"currency": "EUR"}, uEUR, dimCurrency},
		{"stock", map[string]any{"currency": "EUR"}, nil, dimCount},
		{"first_weight_fee", nil, nil, dimCurrency},
		{"total_qty", nil, nil, dimCount},
		{"snowfall_in", nil, uInch, dimLength},
		{"checkin", nil, nil, dimNone},
	}
	for _, tt := range tests {
		u, d := keyUnit(tt.key, conceptsOf(tt.key), tt.siblings)
		if tt.want != nil && u != tt.want || d != tt.dim {
			t.Errorf("keyUnit(%q) = %v, %d; want %v, %d", tt.key, u, d, tt.want, tt.dim)
		}
	}
}
