package scnn

import "testing"

func TestPreferredCore(t *testing.T) {
	for _, tc := range []struct {
		current      string
		avx512, avx2 bool
		want         string
	}{
		{"Prescott", true, true, "SKYLAKEX"},
		{"Haswell", true, true, "SKYLAKEX"},
		{"SkylakeX", true, true, ""},
		{"Cooperlake", true, true, ""},
		{"Prescott", false, true, "HASWELL"},
		{"Sandybridge", false, true, "HASWELL"},
		{"Zen", false, true, ""},
		{"Haswell", false, true, ""},
		{"Prescott", false, false, ""},
		{"", true, true, ""}, // pure-Go build: nothing to tune
	} {
		if got := preferredCore(tc.current, tc.avx512, tc.avx2); got != tc.want {
			t.Errorf("preferredCore(%q, avx512=%v, avx2=%v) = %q, want %q", tc.current, tc.avx512, tc.avx2, got, tc.want)
		}
	}
}
