package config

import (
	"math"
	"testing"
)

// TestCNumbers checks atoi and strtoull, which share cSign, against what C
// returns for the same text.
func TestCNumbers(t *testing.T) {
	tests := []struct {
		in   string
		atoi int
		ull  uint64
	}{
		{"", 0, 0},
		{"42", 42, 42},
		{" \t\v\f\r\n42", 42, 42},
		{"+7x", 7, 7},
		{"-7", -7, math.MaxUint64 - 6}, // strtoull negates in unsigned
		{"- 7", 0, 0},
		{"abc", 0, 0},
		{"12abc", 12, 12},
		{"4294967297", 1, 4294967297}, // atoi wraps to 32 bits
		{"99999999999999999999999", -1, math.MaxUint64}, // glibc: LONG_MAX, then (int)
	}
	for _, tc := range tests {
		if got := atoi(tc.in); got != tc.atoi {
			t.Errorf("atoi(%q) = %d, want %d", tc.in, got, tc.atoi)
		}
		if got := strtoull(tc.in); got != tc.ull {
			t.Errorf("strtoull(%q) = %d, want %d", tc.in, got, tc.ull)
		}
	}
}
