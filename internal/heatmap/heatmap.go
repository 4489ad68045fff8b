// Package heatmap draws a symmetric pair-probability map as a PNG:
// prediction above the diagonal, the known pairs (contacts, base pairs)
// below it, with position ticks, a colour bar and a legend; maps longer
// than MaxSide are max-pooled down to at most MaxSide pixels a side, and
// an RNA's map can carry an arc diagram of its structures under it.
package heatmap

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// viridis holds anchor colours of the viridis colour map at 0, 0.25,
// 0.5, 0.75, 1.
var viridis = [5][3]float64{{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}

func colourOf(v float32) color.RGBA {
	x := float64(min(max(v, 0), 1)) * 4
	k := min(int(x), 3)
	f := x - float64(k)
	var c [3]uint8
	for i := range c {
		c[i] = uint8(viridis[k][i]*(1-f) + viridis[k+1][i]*f + 0.5)
	}
	return color.RGBA{c[0], c[1], c[2], 255}
}

// Colours of the heatmap's lower triangle and diagonal.
var (
	contactColour    = color.RGBA{0, 0, 0, 255}
	noContactColour  = color.RGBA{255, 255, 255, 255}
	unresolvedColour = color.RGBA{215, 215, 215, 255}
	diagonalColour   = color.RGBA{150, 60, 60, 255}
)

// tickStep returns the first step of 1, 2, 5, 10, 20, 25, 50, 100, 200,
// 250, 500, 1000, ... that puts at most 10 ticks on an axis of l residues.
func tickStep(l int) int {
	for m := 1; ; m *= 10 {
		for _, s := range []int{m, 2 * m, 25 * m / 10, 5 * m} {
			if l/s <= 10 {
				return s
			}
		}
	}
}

// Truth is the known map drawn below the diagonal.
type Truth interface {
	// At reports whether (i, j) is a true pair and whether it is known.
	At(i, j int) (pair, known bool)
}

// Words name what the map shows in its axes and legend.
type Words struct {
	Unit      string // "residue", "base"
	Predicted string // "P(contact)"
	Pair      string // "true contact (the model's definition)"
	Unknown   string // "residue without coordinates; white: no contact" ("": no such row)
}

// MaxSide is the most pixels a side of the map itself takes: a longer
// map is max-pooled (Pool), so that a 5,000-residue map makes a PNG of
// about 1,100 x 1,200 pixels drawn in well under a second, with its
// contacts visible and its labels legible, not one of 5,000 pixels a side
// whose helices are a pixel wide.
const MaxSide = 1000

// Pool returns how many positions (f) one pixel of a map of l positions
// covers along each axis, f x f pairs a pixel, and the pixels a cell
// takes (s, for short maps blown up to about 600 pixels): the map is
// ceil(l/f)*s pixels a side, at most MaxSide.
func Pool(l int) (f, s int) {
	if l <= MaxSide {
		return 1, max(1, 600/max(l, 1))
	}
	return (l + MaxSide - 1) / MaxSide, 1
}

// Side returns the pixels a side of the map of l positions takes.
func Side(l int) int {
	f, s := Pool(l)
	return (l + f - 1) / f * s
}

// Arcs are the structures an arc diagram under the map shows: each pair
// an arc over the position axis (aligned with the map's columns),
// Pairs above the axis and Known, if not nil, below it.
type Arcs struct {
	Pairs      [][2]int
	PairsLabel string // legend: "predicted structure"
	Known      [][2]int
	KnownLabel string // legend: "known structure"
}

// Map is what DrawMap draws.
type Map struct {
	Title string
	P     []float32 // L x L
	L     int
	Truth Truth // may be nil
	Words Words
	Arcs  *Arcs // nil: no arc diagram
}

// Colours of the arc diagram.
var (
	arcColour   = color.RGBA{40, 70, 200, 255}
	knownColour = color.RGBA{0, 0, 0, 255}
	axisColour  = color.RGBA{120, 120, 120, 255}
)

// Draw draws the prediction p (L x L) above the diagonal and, if truth is
// not nil, the true pairs below it (black pair, white none, light grey
// unknown), the diagonal in dark red, with positions (1-based) on both
// axes, a colour bar and a legend (DrawMap).
func Draw(w io.Writer, title string, p []float32, l int, truth Truth, words Words) error {
	return DrawMap(w, Map{Title: title, P: p, L: l, Truth: truth, Words: words})
}

// DrawMap draws m as Draw does, and its arc diagram under the map. A map
// longer than MaxSide is max-pooled (Pool): a pixel of f x f pairs shows
// the most probable of them above the diagonal and, below it, a true pair
// if any of them is one (else unknown if any is unknown); the pixels on
// the diagonal, whose pairs lie within f of it, are the diagonal's.
func DrawMap(w io.Writer, m Map) error {
	title, p, l, truth, words := m.Title, m.P, m.L, m.Truth, m.Words
	f, s := Pool(l)
	n := (l + f - 1) / f // cells a side
	size := n * s
	// The cells: the most probable pair above the diagonal; below it 2 a
	// true pair, 1 unknown, 0 none.
	up := make([]float32, n*n)
	low := make([]uint8, n*n)
	for i := 0; i < l; i++ {
		a := i / f
		row := p[i*l : i*l+l]
		for j := (a + 1) * f; j < l; j++ {
			if k := a*n + j/f; row[j] > up[k] {
				up[k] = row[j]
			}
		}
		if truth == nil {
			continue
		}
		for j := 0; j < a*f; j++ {
			k := a*n + j/f
			if low[k] == 2 {
				continue
			}
			switch pair, known := truth.At(i, j); {
			case !known:
				low[k] = 1
			case pair:
				low[k] = 2
			}
		}
	}
	const left, top, right = 44, 34, 90
	legendRows := 2 // prediction, diagonal
	if truth != nil {
		legendRows++
		if words.Unknown != "" {
			legendRows++
		}
	}
	if f > 1 {
		legendRows++
	}
	arcsUp, arcsDown, arcsH := 0, 0, 0 // the arc diagram's heights above and below its axis
	if a := m.Arcs; a != nil {
		arcsUp = max(size/4, 40)
		legendRows++
		if a.Known != nil {
			arcsDown = arcsUp
			legendRows++
		}
		arcsH = arcsUp + arcsDown + 16
	}
	img := image.NewRGBA(image.Rect(0, 0, left+size+right, top+size+46+arcsH+16*legendRows))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	off := image.Pt(left, top)
	fill := func(r image.Rectangle, c color.Color) {
		draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
	}
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			var c color.RGBA
			switch {
			case b > a:
				c = colourOf(up[a*n+b])
			case b == a:
				c = diagonalColour
			case truth == nil:
				c = noContactColour
			default:
				switch low[a*n+b] {
				case 1:
					c = unresolvedColour
				case 2:
					c = contactColour
				default:
					c = noContactColour
				}
			}
			for y := off.Y + a*s; y < off.Y+(a+1)*s; y++ { // one cell, written directly
				for x := off.X + b*s; x < off.X+(b+1)*s; x++ {
					img.SetRGBA(x, y, c)
				}
			}
		}
	}
	black := color.RGBA{0, 0, 0, 255}
	for k := -1; k <= size; k++ { // frame
		img.Set(off.X+k, off.Y-1, black)
		img.Set(off.X+k, off.Y+size, black)
		img.Set(off.X-1, off.Y+k, black)
		img.Set(off.X+size, off.Y+k, black)
	}
	label := func(x, y int, t string) {
		d := font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
		d.DrawString(t)
	}
	// centre is the pixel of position i (0-based) along an axis.
	centre := func(i int) int { return i/f*s + s/2 }
	// Position ticks: position k is row and column k-1.
	step := tickStep(l)
	for k := step; k <= l; k += step {
		c := centre(k - 1)
		for d := 1; d <= 4; d++ {
			img.Set(off.X-1-d, off.Y+c, black)    // left: rows i
			img.Set(off.X+c, off.Y+size+d, black) // bottom: columns j
			img.Set(off.X+size+d, off.Y+c, black) // right
			img.Set(off.X+c, off.Y-1-d, black)    // top
		}
		t := fmt.Sprint(k)
		label(off.X-6-7*len(t), off.Y+c+4, t)
		label(off.X+c-7*len(t)/2, off.Y+size+17, t)
	}
	label(off.X+size/2-21, off.Y+size+30, words.Unit+" j")
	label(2, top-6, words.Unit+" i")
	// Colour bar.
	bx := off.X + size + 14
	for y := 0; y < size; y++ {
		c := colourOf(1 - float32(y)/float32(max(size-1, 1)))
		for x := 0; x < 16; x++ {
			img.Set(bx+x, off.Y+y, c)
		}
	}
	label(bx+20, off.Y+10, "1.0")
	label(bx+20, off.Y+size/2+4, "0.5")
	label(bx+20, off.Y+size, "0.0")
	label(off.X, 14, fmt.Sprintf("%s  L=%d", title, l))
	// The arc diagram: its axis under the map's column labels.
	if a := m.Arcs; a != nil {
		axis := off.Y + size + 40 + arcsUp
		for x := off.X; x < off.X+size; x++ {
			img.Set(x, axis, axisColour)
		}
		for k := step; k <= l; k += step {
			for d := -2; d <= 2; d++ {
				img.Set(off.X+centre(k-1), axis+d, axisColour)
			}
		}
		scale := float64(arcsUp-4) / float64(max(size, 1)) // height per pixel of span
		for _, pr := range a.Pairs {
			drawArc(img, off.X+centre(pr[0]), off.X+centre(pr[1]), axis, -scale, arcColour)
		}
		for _, pr := range a.Known {
			drawArc(img, off.X+centre(pr[0]), off.X+centre(pr[1]), axis, scale, knownColour)
		}
	}
	// Legend.
	y := off.Y + size + 40 + arcsH
	swatch := func(c color.Color, t string) {
		fill(image.Rect(off.X, y, off.X+12, y+12), c)
		for k := 0; k < 12; k++ {
			img.Set(off.X+k, y, black)
			img.Set(off.X+k, y+11, black)
			img.Set(off.X, y+k, black)
			img.Set(off.X+11, y+k, black)
		}
		label(off.X+18, y+10, t)
		y += 16
	}
	fill(image.Rect(off.X, y, off.X+12, y+12), colourOf(0.75))
	label(off.X+18, y+10, "upper triangle (j > i): predicted "+words.Predicted+", colour bar")
	y += 16
	swatch(diagonalColour, "diagonal: not predicted")
	if truth != nil {
		swatch(contactColour, "lower triangle: "+words.Pair)
		if words.Unknown != "" {
			swatch(unresolvedColour, "lower triangle: "+words.Unknown)
		}
	}
	if f > 1 {
		label(off.X+18, y+10, fmt.Sprintf("a pixel: %d x %d pairs, the most probable above the diagonal, any true pair below", f, f))
		y += 16
	}
	if a := m.Arcs; a != nil {
		swatch(arcColour, "arcs above the axis: "+a.PairsLabel)
		if a.Known != nil {
			swatch(knownColour, "arcs below the axis: "+a.KnownLabel)
		}
	}
	return png.Encode(w, img)
}

// drawArc draws a half ellipse from x0 to x1 on the line y, of height
// scale x (x1 - x0) pixels: above the line for a negative scale, below it
// for a positive one.
func drawArc(img *image.RGBA, x0, x1, y int, scale float64, c color.RGBA) {
	if x1 < x0 {
		x0, x1 = x1, x0
	}
	r := float64(x1-x0) / 2
	h := scale * float64(x1-x0)
	mid := float64(x0+x1) / 2
	steps := max(8, int(2*(r+math.Abs(h))))
	px, py := x0, y
	for k := 1; k <= steps; k++ {
		t := math.Pi * float64(k) / float64(steps)
		x := int(math.Round(mid - r*math.Cos(t)))
		yy := y + int(math.Round(h*math.Sin(t)))
		Line(img, px, py, x, yy, c)
		px, py = x, yy
	}
}

// Line draws a straight line (Bresenham's) from (x0, y0) to (x1, y1)
// inclusive; pixels outside img are left out.
func Line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for {
		if (image.Point{x0, y0}).In(img.Rect) {
			img.SetRGBA(x0, y0, c)
		}
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
