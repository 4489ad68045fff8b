package train

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

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/heatmap"
)

type series struct {
	name string
	col  color.RGBA
	y    []float64
}

var (
	blue   = color.RGBA{31, 119, 180, 255}
	orange = color.RGBA{255, 127, 14, 255}
	green  = color.RGBA{44, 160, 44, 255}
	red    = color.RGBA{214, 39, 40, 255}
	grey   = color.RGBA{200, 200, 200, 255}
	black  = color.RGBA{0, 0, 0, 255}
)

// Plot draws the training curves: losses on the left, validation metrics
// on the right, against the epoch.
func Plot(path string, log []EpochLog, title string) error {
	img := image.NewRGBA(image.Rect(0, 0, 960, 420))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	var tl, vl, acc, long []float64
	for _, e := range log {
		tl = append(tl, e.TrainLoss)
		vl = append(vl, e.ValLoss)
		acc = append(acc, e.ValAcc)
		long = append(long, e.ValLongL5)
	}
	panel(img, image.Rect(60, 30, 460, 370), title+": loss (weighted BCE)", []series{{"train", blue, tl}, {"validation", orange, vl}}, false)
	panel(img, image.Rect(540, 30, 940, 370), title+": validation metrics", []series{{"accuracy (PPV+Sen)/2", green, acc}, {"long-range top-L/5", red, long}}, true)
	return fileio.WriteAtomic(path, func(w io.Writer) error { return png.Encode(w, img) })
}

func text(img *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func panel(img *image.RGBA, r image.Rectangle, title string, ss []series, unit bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	n := 0
	for _, s := range ss {
		for _, v := range s.y {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		n = max(n, len(s.y))
	}
	if unit {
		lo, hi = 0, 1
	}
	if n == 0 || lo > hi {
		lo, hi = 0, 1
	}
	if hi-lo < 1e-9 {
		hi = lo + 1
	}
	pad := (hi - lo) * 0.05
	lo, hi = lo-pad, hi+pad
	xOf := func(i int) int {
		if n <= 1 {
			return r.Min.X + r.Dx()/2
		}
		return r.Min.X + i*r.Dx()/(n-1)
	}
	yOf := func(v float64) int { return r.Max.Y - int((v-lo)/(hi-lo)*float64(r.Dy())) }
	for k := 0; k <= 4; k++ {
		v := lo + (hi-lo)*float64(k)/4
		y := yOf(v)
		for x := r.Min.X; x <= r.Max.X; x++ {
			img.Set(x, y, grey)
		}
		text(img, r.Min.X-55, y+4, fmt.Sprintf("%7.3f", v), black)
	}
	for x := r.Min.X; x <= r.Max.X; x++ {
		img.Set(x, r.Max.Y, black)
	}
	for y := r.Min.Y; y <= r.Max.Y; y++ {
		img.Set(r.Min.X, y, black)
	}
	step := max(1, n/10)
	for i := 0; i < n; i += step {
		text(img, xOf(i)-3, r.Max.Y+16, fmt.Sprint(i+1), black)
	}
	text(img, r.Min.X+r.Dx()/2-20, r.Max.Y+32, "epoch", black)
	text(img, r.Min.X, r.Min.Y-10, title, black)
	for k, s := range ss {
		for i := 1; i < len(s.y); i++ {
			line(img, xOf(i-1), yOf(s.y[i-1]), xOf(i), yOf(s.y[i]), s.col)
		}
		for i, v := range s.y {
			x, y := xOf(i), yOf(v)
			for dx := -2; dx <= 2; dx++ {
				for dy := -2; dy <= 2; dy++ {
					img.Set(x+dx, y+dy, s.col)
				}
			}
		}
		text(img, r.Max.X-170, r.Min.Y+14+14*k, "- "+s.name, s.col)
	}
}

// line draws a segment (heatmap.Line), two pixels thick.
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	heatmap.Line(img, x0, y0, x1, y1, c)
	heatmap.Line(img, x0, y0+1, x1, y1+1, c)
}
