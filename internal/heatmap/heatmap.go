// Package heatmap draws a symmetric pair-probability map as a PNG:
// prediction above the diagonal, the known pairs (contacts, base pairs)
// below it, with position ticks, a colour bar and a legend.
package heatmap

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"

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

// Draw draws the prediction p (L x L) above the diagonal and, if truth is
// not nil, the true pairs below it (black pair, white none, light grey
// unknown), the diagonal in dark red, with positions (1-based) on both
// axes, a colour bar and a legend.
func Draw(w io.Writer, title string, p []float32, l int, truth Truth, words Words) error {
	s := max(1, 600/max(l, 1))
	size := l * s
	const left, top, right = 44, 34, 90
	legendRows := 2 // prediction, diagonal
	if truth != nil {
		legendRows++
		if words.Unknown != "" {
			legendRows++
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, left+size+right, top+size+46+16*legendRows))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	off := image.Pt(left, top)
	fill := func(r image.Rectangle, c color.Color) {
		draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
	}
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			var c color.RGBA
			switch {
			case j > i:
				c = colourOf(p[i*l+j])
			case j == i:
				c = diagonalColour
			case truth == nil:
				c = noContactColour
			default:
				switch contact, known := truth.At(i, j); {
				case !known:
					c = unresolvedColour
				case contact:
					c = contactColour
				default:
					c = noContactColour
				}
			}
			for y := off.Y + i*s; y < off.Y+(i+1)*s; y++ { // one cell, written directly
				for x := off.X + j*s; x < off.X+(j+1)*s; x++ {
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
	// Residue-number ticks: residue n is row and column n-1.
	step := tickStep(l)
	for n := step; n <= l; n += step {
		c := (n-1)*s + s/2
		for k := 1; k <= 4; k++ {
			img.Set(off.X-1-k, off.Y+c, black)    // left: rows i
			img.Set(off.X+c, off.Y+size+k, black) // bottom: columns j
			img.Set(off.X+size+k, off.Y+c, black) // right
			img.Set(off.X+c, off.Y-1-k, black)    // top
		}
		t := fmt.Sprint(n)
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
	// Legend.
	y := off.Y + size + 40
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
	return png.Encode(w, img)
}
