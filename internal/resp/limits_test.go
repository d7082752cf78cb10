package resp

import "testing"

// TestLimitsWithDefaults checks that zero and negative fields take the
// default and positive ones are kept, field by field.
func TestLimitsWithDefaults(t *testing.T) {
	d := DefaultLimits()
	set := Limits{MaxBulkLen: 1, MaxArgs: 2, MaxInlineLen: 3, UnauthMaxArgs: 4, UnauthMaxBulkLen: 5, MaxArrayLen: 6, MaxDepth: 7}
	neg := Limits{MaxBulkLen: -1, MaxArgs: -1, MaxInlineLen: -1, UnauthMaxArgs: -1, UnauthMaxBulkLen: -1, MaxArrayLen: -1, MaxDepth: -1}
	tests := []struct {
		name    string
		in, out Limits
	}{
		{"zero", Limits{}, d},
		{"negative", neg, d},
		{"set", set, set},
		{"mixed", Limits{MaxBulkLen: 9, MaxDepth: -3}, Limits{MaxBulkLen: 9, MaxArgs: d.MaxArgs, MaxInlineLen: d.MaxInlineLen, UnauthMaxArgs: d.UnauthMaxArgs, UnauthMaxBulkLen: d.UnauthMaxBulkLen, MaxArrayLen: d.MaxArrayLen, MaxDepth: d.MaxDepth}},
	}
	for _, tc := range tests {
		if got := tc.in.withDefaults(); got != tc.out {
			t.Errorf("%s: withDefaults(%+v) = %+v, want %+v", tc.name, tc.in, got, tc.out)
		}
	}
}
