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

// A 5,000-position map is max-pooled to at most MaxSide pixels a side (the
// PNG about 1,100 x 1,200), and a lone contact stays visible at its
// pooled pixel, above the diagonal and below it (unpooled, such a map made
// a 5,000-pixel PNG with 1-pixel helices, 4 minutes to draw).
func TestDrawCapsLargeMaps(t *testing.T) {
	const l = 5000
	p := make([]float32, l*l)
	p[1234*l+4321], p[4321*l+1234] = 1, 1
	var buf bytes.Buffer
	if err := Draw(&buf, "big", p, l, pairs{{1234, 4321}: true}, Words{Unit: "residue", Predicted: "P(contact)", Pair: "contact"}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() > 2000 || b.Dy() > 2000 {
		t.Fatalf("PNG of %d x %d pixels for L = %d, want at most 2000 a side", b.Dx(), b.Dy(), l)
	}
	f, s := Pool(l)
	if f != 5 || s != 1 || Side(l) != 1000 {
		t.Errorf("Pool(%d) = %d, %d, Side %d; want 5, 1, 1000", l, f, s, Side(l))
	}
	at := func(i, j int) [3]uint32 {
		r, g, b, _ := img.At(44+j/f*s, 34+i/f*s).RGBA()
		return [3]uint32{r >> 8, g >> 8, b >> 8}
	}
	if c := at(1234, 4321); c != [3]uint32{253, 231, 37} {
		t.Errorf("pooled contact drawn %v, want viridis yellow", c)
	}
	if c := at(1234, 4326); c == [3]uint32{253, 231, 37} {
		t.Errorf("the next pixel drawn %v, want a low probability's colour", c)
	}
	if c := at(4321, 1234); c != [3]uint32{0, 0, 0} {
		t.Errorf("pooled true contact drawn %v, want black", c)
	}
	if c := at(4321, 1240); c != [3]uint32{255, 255, 255} {
		t.Errorf("pooled no contact drawn %v, want white", c)
	}
}

// The arc diagram under the map: an arc of each predicted pair above its
// axis, of each known pair below, aligned with the map's columns.
func TestDrawArcs(t *testing.T) {
	const l = 60
	p := make([]float32, l*l)
	var buf bytes.Buffer
	m := Map{Title: "arcs", P: p, L: l, Words: Words{Unit: "base", Predicted: "P(pair)"},
		Arcs: &Arcs{Pairs: [][2]int{{10, 50}}, PairsLabel: "predicted", Known: [][2]int{{0, 20}}, KnownLabel: "known"}}
	if err := DrawMap(&buf, m); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	_, s := Pool(l)
	size := Side(l)
	axis := 34 + size + 40 + size/4
	x := func(i int) int { return 44 + i*s + s/2 }
	colour := func(x, y int) [3]uint32 {
		r, g, b, _ := img.At(x, y).RGBA()
		return [3]uint32{r >> 8, g >> 8, b >> 8}
	}
	// Column of the arc's apex: coloured above the axis only.
	mid := (x(10) + x(50)) / 2
	above, below := false, false
	for y := axis - size/4; y < axis; y++ {
		above = above || colour(mid, y) == [3]uint32{40, 70, 200}
	}
	for y := axis + 1; y < axis+size/4; y++ {
		below = below || colour(mid, y) != [3]uint32{255, 255, 255}
	}
	if !above || below {
		t.Errorf("predicted arc's apex column: above %v, below %v; want above only", above, below)
	}
	kmid := (x(0) + x(20)) / 2
	found := false
	for y := axis + 1; y < axis+size/4; y++ {
		found = found || colour(kmid, y) == [3]uint32{0, 0, 0}
	}
	if !found {
		t.Error("no known arc below the axis")
	}
}
