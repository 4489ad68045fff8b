package heatmap

import (
	"bytes"
	"image/png"
	"testing"
)

func TestTickStep(t *testing.T) {
	for l, want := range map[int]int{5: 1, 10: 1, 11: 2 /* 11/1 > 10 */, 54: 5, 100: 10, 101: 10, 120: 20, 230: 25, 300: 50, 1000: 100, 2741: 250} {
		if got := tickStep(l); got != want {
			t.Errorf("tickStep(%d) = %d, want %d", l, got, want)
		}
	}
}

type pairs map[[2]int]bool

func (p pairs) At(i, j int) (bool, bool) { return p[[2]int{min(i, j), max(i, j)}], true }

// The map's cells: prediction colour above the diagonal, black for a true
// pair below it, white for none.
func TestDrawCells(t *testing.T) {
	const l = 30
	p := make([]float32, l*l)
	p[2*l+7] = 1
	var buf bytes.Buffer
	if err := Draw(&buf, "t", p, l, pairs{{2, 7}: true}, Words{Unit: "base", Predicted: "P(pair)", Pair: "pair", Unknown: "unknown"}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	s := 600 / l
	at := func(i, j int) [3]uint32 {
		r, g, b, _ := img.At(44+j*s+s/2, 34+i*s+s/2).RGBA()
		return [3]uint32{r >> 8, g >> 8, b >> 8}
	}
	if c := at(2, 7); c != [3]uint32{253, 231, 37} {
		t.Errorf("predicted 1.0 drawn %v, want viridis yellow", c)
	}
	if c := at(7, 2); c != [3]uint32{0, 0, 0} {
		t.Errorf("true pair drawn %v, want black", c)
	}
	if c := at(8, 2); c != [3]uint32{255, 255, 255} {
		t.Errorf("no pair drawn %v, want white", c)
	}
}
