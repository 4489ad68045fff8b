package predict

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

// Heatmap draws the prediction p (L x L) above the diagonal and, if
// contacts is not nil, the true contacts below it (black contact, white
// no contact, grey unknown), with a colour bar.
func Heatmap(w io.Writer, title string, p []float32, l int, contacts, mask []bool) error {
	s := max(1, 600/max(l, 1))
	size := l * s
	img := image.NewRGBA(image.Rect(0, 0, size+110, size+56))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	off := image.Pt(10, 30)
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			var c color.RGBA
			switch {
			case j > i:
				c = colourOf(p[i*l+j])
			case j == i:
				c = color.RGBA{128, 128, 128, 255}
			case contacts == nil:
				c = color.RGBA{255, 255, 255, 255}
			case !mask[i*l+j]:
				c = color.RGBA{210, 210, 210, 255}
			case contacts[i*l+j]:
				c = color.RGBA{0, 0, 0, 255}
			default:
				c = color.RGBA{255, 255, 255, 255}
			}
			draw.Draw(img, image.Rect(off.X+j*s, off.Y+i*s, off.X+(j+1)*s, off.Y+(i+1)*s), image.NewUniform(c), image.Point{}, draw.Src)
		}
	}
	// Frame.
	frame := color.RGBA{0, 0, 0, 255}
	for k := -1; k <= size; k++ {
		img.Set(off.X+k, off.Y-1, frame)
		img.Set(off.X+k, off.Y+size, frame)
		img.Set(off.X-1, off.Y+k, frame)
		img.Set(off.X+size, off.Y+k, frame)
	}
	// Colour bar.
	bx := off.X + size + 20
	for y := 0; y < size; y++ {
		c := colourOf(1 - float32(y)/float32(max(size-1, 1)))
		for x := 0; x < 20; x++ {
			img.Set(bx+x, off.Y+y, c)
		}
	}
	label := func(x, y int, t string) {
		d := font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
		d.DrawString(t)
	}
	label(bx+24, off.Y+10, "1.0")
	label(bx+24, off.Y+size/2+4, "0.5")
	label(bx+24, off.Y+size, "0.0")
	label(bx-2, off.Y+size+16, "P(contact)")
	lower := "lower: no structure"
	if contacts != nil {
		lower = "lower: true contacts"
	}
	label(off.X, 14, fmt.Sprintf("%s  L=%d  upper: predicted, %s", title, l, lower))
	return png.Encode(w, img)
}
