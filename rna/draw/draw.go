// Package draw draws an RNA secondary structure as an SVG picture in the
// simple radial layout of RNAplot (ViennaRNA's -t 0, after Bruccoleri and
// Heinrich 1988): every loop a regular polygon whose sides are the
// backbone steps and the pairs that close it or branch from it, every
// stem a straight ladder of squares, the exterior loop a circle with a gap
// between the 5' and 3' ends. Bases are drawn as letters, pairs as lines,
// the backbone as a polyline, and positions are numbered every 10 bases.
// Pairs that cross others (pseudoknots) are left out of the layout and
// drawn as dashed lines.
package draw

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/contactmap/contactmap/rna"
)

// Point is a position in layout units: the backbone step and a pair's
// width are 1.
type Point struct{ X, Y float64 }

func (p Point) add(q Point) Point         { return Point{p.X + q.X, p.Y + q.Y} }
func (p Point) sub(q Point) Point         { return Point{p.X - q.X, p.Y - q.Y} }
func (p Point) scale(f float64) Point     { return Point{p.X * f, p.Y * f} }
func (p Point) norm() float64             { return math.Hypot(p.X, p.Y) }
func (p Point) unit() Point               { return p.scale(1 / max(p.norm(), 1e-12)) }
func (p Point) right() Point              { return Point{p.Y, -p.X} } // for y up; see layout's orientation
func (p Point) left() Point               { return Point{-p.Y, p.X} }
func polar(r, a float64) Point            { return Point{r * math.Cos(a), r * math.Sin(a)} }
func (p Point) angleFrom(c Point) float64 { d := p.sub(c); return math.Atan2(d.Y, d.X) }

// Nested returns the partners of the nested pairs of partner (-1:
// unpaired): pairs by increasing 5' base, each kept unless it crosses
// one kept before.
func Nested(partner []int) []int {
	out := make([]int, len(partner))
	for i := range out {
		out[i] = rna.Unpaired
	}
	var kept [][2]int
	for i, j := range partner {
		if j <= i || j >= len(partner) {
			continue
		}
		ok := true
		for _, k := range kept {
			if k[0] < i && i < k[1] && k[1] < j { // k opens before i, closes inside (i, j)
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, [2]int{i, j})
			out[i], out[j] = j, i
		}
	}
	return out
}

// Layout is the positions of a structure's bases and, for each, the
// direction in which its number is written (away from its loop's centre,
// or from its partner in a stem).
type Layout struct {
	Pos []Point
	Out []Point // unit vectors
}

// NewLayout lays out the nested pairs of partner (-1: unpaired; pairs
// that cross others are ignored, see Nested) in the simple radial layout.
func NewLayout(partner []int) Layout {
	p := Nested(partner)
	n := len(p)
	lay := Layout{Pos: make([]Point, n), Out: make([]Point, n)}
	if n == 0 {
		return lay
	}
	// The exterior loop: its bases and the pairs of its stems, and a
	// vertex of its own for the gap between the ends.
	verts := loopVertices(p, 0, n)
	m := len(verts) + 1
	r := radius(m)
	for k, v := range verts {
		// CCW from the bottom, the gap last: the 5' end at the left of
		// the gap, the 3' end at its right.
		lay.Pos[v] = polar(r, -math.Pi/2+float64(k+1)*2*math.Pi/float64(m))
		lay.Out[v] = lay.Pos[v].unit()
	}
	if m == 2 { // a single base
		lay.Pos[verts[0]] = Point{}
		lay.Out[verts[0]] = Point{0, 1}
	}
	lay.branches(p, verts)
	return lay
}

// radius is the circumradius of a regular polygon of m unit sides.
func radius(m int) float64 {
	if m < 2 {
		return 0
	}
	return 0.5 / math.Sin(math.Pi/float64(m))
}

// loopVertices returns the vertices of the loop between i and j
// (exclusive; for the exterior loop 0 and n as if -1 and n were a pair):
// its unpaired bases, and for each stem from it its two bases (5', 3').
func loopVertices(p []int, from, to int) []int {
	var v []int
	for k := from; k < to; {
		if q := p[k]; q > k {
			v = append(v, k, q)
			k = q + 1
		} else {
			v = append(v, k)
			k++
		}
	}
	return v
}

// branches lays out the stems that leave a placed loop (its vertices
// verts, counter-clockwise, the pair sides' among them) and the loops
// they close, recursively (by an explicit stack: a long chain of loops
// must not overflow the goroutine's stack).
func (lay *Layout) branches(p []int, verts []int) {
	type job struct{ verts []int }
	stack := []job{{verts}}
	for len(stack) > 0 {
		jb := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		vs := jb.verts
		for k := 0; k+1 < len(vs); k++ {
			a, b := vs[k], vs[k+1]
			if p[a] != b || b < a {
				continue
			}
			// The stem: a ladder outward from the side a -> b.
			out := lay.Pos[b].sub(lay.Pos[a]).unit().right()
			pa, pb := lay.Pos[a], lay.Pos[b]
			lay.Out[a], lay.Out[b] = pa.sub(pb).unit(), pb.sub(pa).unit()
			i, j := a, b
			for t := 1; i+1 < j-1 && p[i+1] == j-1; t++ {
				i, j = i+1, j-1
				lay.Pos[i] = pa.add(out.scale(float64(t)))
				lay.Pos[j] = pb.add(out.scale(float64(t)))
				lay.Out[i], lay.Out[j] = lay.Out[a], lay.Out[b]
			}
			// The loop it closes: a regular polygon beyond the side
			// j -> i, counter-clockwise from i to j.
			inner := append([]int{i}, loopVertices(p, i+1, j)...)
			inner = append(inner, j)
			m := len(inner)
			pi, pj := lay.Pos[i], lay.Pos[j]
			apothem := 0.0
			if m > 2 {
				apothem = 0.5 / math.Tan(math.Pi/float64(m))
			}
			c := pi.add(pj).scale(0.5).add(out.scale(apothem))
			r := radius(m)
			a0 := pi.angleFrom(c) // i first, j last, counter-clockwise
			for q := 1; q+1 < m; q++ {
				v := inner[q]
				lay.Pos[v] = c.add(polar(r, a0+float64(q)*2*math.Pi/float64(m)))
				lay.Out[v] = lay.Pos[v].sub(c).unit()
			}
			if m > 2 {
				stack = append(stack, job{inner[1 : m-1]})
			}
		}
	}
}

// Scale is the pixels of a layout unit in the SVG.
const Scale = 16

// WriteSVG draws s: its nested pairs in the simple radial layout
// (NewLayout), crossing pairs as dashed lines, positions numbered every
// 10 bases, the 5' and 3' ends marked, and the name as its title.
func WriteSVG(w io.Writer, s *rna.Structure) error {
	n := len(s.Seq)
	lay := NewLayout(s.Partner)
	nested := Nested(s.Partner)
	// Screen coordinates: y down.
	px := func(p Point) (float64, float64) { return p.X * Scale, -p.Y * Scale }
	minX, minY, maxX, maxY := 0.0, 0.0, 0.0, 0.0
	grow := func(p Point) {
		x, y := px(p)
		minX, maxX = min(minX, x), max(maxX, x)
		minY, maxY = min(minY, y), max(maxY, y)
	}
	for i := range lay.Pos {
		grow(lay.Pos[i])
		grow(lay.Pos[i].add(lay.Out[i].scale(2.2)))
	}
	const margin = 24
	minX, minY = minX-margin, minY-margin-18 // the title's line
	maxX, maxY = maxX+margin, maxY+margin
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(bw, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"%.1f %.1f %.1f %.1f\" width=\"%.0f\" height=\"%.0f\" font-family=\"Helvetica, Arial, sans-serif\">\n",
		minX, minY, maxX-minX, maxY-minY, maxX-minX, maxY-minY)
	fmt.Fprintf(bw, "<title>%s</title>\n", escape(s.Name))
	fmt.Fprintf(bw, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\"/>\n", minX, minY, maxX-minX, maxY-minY)
	fmt.Fprintf(bw, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s  L=%d, %d pairs</text>\n", minX+8, minY+16, escape(s.Name), n, len(s.Pairs()))
	// The backbone.
	if n > 1 {
		var b strings.Builder
		for i, p := range lay.Pos {
			x, y := px(p)
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.2f,%.2f", x, y)
		}
		fmt.Fprintf(bw, "<polyline class=\"backbone\" points=\"%s\" fill=\"none\" stroke=\"#999\" stroke-width=\"1.2\"/>\n", b.String())
	}
	// The pairs: the middle of the segment between the letters.
	for i, j := range s.Partner {
		if j <= i {
			continue
		}
		a, b := lay.Pos[i], lay.Pos[j]
		d := b.sub(a)
		x0, y0 := px(a.add(d.scale(0.3)))
		x1, y1 := px(a.add(d.scale(0.7)))
		if nested[i] == j {
			fmt.Fprintf(bw, "<line class=\"pair\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#2846c8\" stroke-width=\"1.5\"/>\n", x0, y0, x1, y1)
		} else { // crossing: the whole way, dashed
			x0, y0 = px(a.add(d.unit().scale(0.35)))
			x1, y1 = px(b.sub(d.unit().scale(0.35)))
			fmt.Fprintf(bw, "<line class=\"pseudoknot\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#c83228\" stroke-width=\"1\" stroke-dasharray=\"3,2\"/>\n", x0, y0, x1, y1)
		}
	}
	// The bases, on white discs over the backbone.
	for i, p := range lay.Pos {
		x, y := px(p)
		fmt.Fprintf(bw, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\" fill=\"white\"/>", x, y, 0.3*Scale)
		fmt.Fprintf(bw, "<text class=\"base\" x=\"%.2f\" y=\"%.2f\" font-size=\"%.0f\" text-anchor=\"middle\" dominant-baseline=\"central\">%c</text>\n", x, y, 0.7*Scale, s.Seq[i])
	}
	// Numbers every 10 bases, and the ends.
	number := func(i int, t string) {
		p, o := lay.Pos[i], lay.Out[i]
		x0, y0 := px(p.add(o.scale(0.45)))
		x1, y1 := px(p.add(o.scale(0.95)))
		tx, ty := px(p.add(o.scale(1.55)))
		fmt.Fprintf(bw, "<line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#555\" stroke-width=\"0.8\"/>", x0, y0, x1, y1)
		fmt.Fprintf(bw, "<text class=\"num\" x=\"%.2f\" y=\"%.2f\" font-size=\"%.0f\" fill=\"#555\" text-anchor=\"middle\" dominant-baseline=\"central\">%s</text>\n", tx, ty, 0.55*Scale, t)
	}
	for k := 10; k <= n; k += 10 {
		number(k-1, fmt.Sprint(k))
	}
	// The ends: beside their base, away from its loop's centre or its
	// partner.
	for _, e := range []struct {
		i int
		t string
	}{{0, "5'"}, {n - 1, "3'"}} {
		if e.i < 0 || e.i == 0 && e.t == "3'" {
			continue
		}
		x, y := px(lay.Pos[e.i].add(lay.Out[e.i].scale(1.05)))
		fmt.Fprintf(bw, "<text class=\"end\" x=\"%.2f\" y=\"%.2f\" font-size=\"%.0f\" fill=\"#c83228\" text-anchor=\"middle\" dominant-baseline=\"central\">%s</text>\n", x, y, 0.55*Scale, e.t)
	}
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

func escape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
