package mr

import (
	"strconv"
	"testing"
)

// TestParseDecimal checks ParseDecimal against strconv.ParseFloat on every
// score the join can write (4 decimals in [0, 1]), and its refusals.
func TestParseDecimal(t *testing.T) {
	for i := 0; i <= 10000; i++ {
		s := strconv.FormatFloat(float64(i)/10000, 'f', 4, 64)
		want, _ := strconv.ParseFloat(s, 64)
		if got, ok := ParseDecimal([]byte(s)); !ok || got != want {
			t.Fatalf("ParseDecimal(%s) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true},
		{"0.5", 0.5, true},
		{"12.25", 12.25, true},
		{"", 0, false},
		{".5", 0, false},
		{"0.", 0, false},
		{"-0.5", 0, false},
		{"0.5e3", 0, false},
		{"1234567.891", 0, false}, // too many digits
	} {
		got, ok := ParseDecimal([]byte(tc.in))
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("ParseDecimal(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
