package scnn

import "testing"

// PackedIndex numbers the upper triangle row by row, 0 .. l(l+1)/2-1,
// and agrees with the formula it documents.
func TestPackedIndex(t *testing.T) {
	for _, l := range []int{1, 2, 3, 7, 50} {
		p := 0
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				if got := PackedIndex(l, i, j); got != p || got != i*l-i*(i-1)/2+(j-i) {
					t.Fatalf("PackedIndex(%d, %d, %d) = %d, want %d", l, i, j, got, p)
				}
				p++
			}
		}
		if n, _ := storedLen(Packed, []int{1, l, l, 1}); p != n {
			t.Errorf("l = %d: %d packed positions, a packed map stores %d", l, p, n)
		}
	}
}
