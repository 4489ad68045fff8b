package scnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// ForwardBranches' backward step (one pass over the tiles for every
// branch) gives the parameter gradients and the input gradient of
// applying each convolution alone and joining the outputs, bit for bit,
// for Conv2D and SymPresConv (whose tied gradients go through
// gradTargets' finish), two branches (whose input gradients add the same
// in either order).
func TestForwardBranchesBackwardMatchesEach(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const b, l, cin = 2, 13, 5
	for _, sym := range []bool{false, true} {
		t.Run(fmt.Sprintf("sym=%v", sym), func(t *testing.T) {
			mk := func() []BranchConv {
				rr := rand.New(rand.NewPCG(3, 4)) // the same weights both times
				var cs []BranchConv
				for i, kc := range [][2]int{{5, 3}, {3, 2}} {
					var c BranchConv
					var err error
					if sym {
						c, err = NewSymPresConv(fmt.Sprintf("c%d", i), kc[0], cin, kc[1], rr)
					} else {
						c, err = NewConv2D(fmt.Sprintf("c%d", i), kc[0], cin, kc[1], rr)
					}
					if err != nil {
						t.Fatal(err)
					}
					cs = append(cs, c)
				}
				return cs
			}
			var x *Tensor
			if sym {
				x = NewPacked(b, l, cin)
			} else {
				x = New(b, l, l, cin)
			}
			randn(x.Data, r)
			var dyData []float32 // drawn on the first run, reused
			run := func(joined bool) ([]BranchConv, *Tensor) {
				cs := mk()
				p := Training(2)
				p.Watch(x)
				var y *Tensor
				var err error
				if joined {
					y, err = ForwardBranches(p, x, cs...)
				} else {
					var outs []*Tensor
					for _, c := range cs {
						o, err := ForwardBranches(p, x, c)
						if err != nil {
							t.Fatal(err)
						}
						outs = append(outs, o)
					}
					y, err = Concat(p, outs...)
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(dyData) == 0 {
					dyData = make([]float32, y.Len())
					randn(dyData, r)
				}
				dy := p.zerosLike(y)
				copy(dy.Data, dyData)
				if err := p.Backward(y, dy); err != nil {
					t.Fatal(err)
				}
				return cs, p.Grad(x)
			}
			gotC, gotX := run(true)
			wantC, wantX := run(false)
			same := func(what string, a, b []float32) {
				t.Helper()
				for i := range a {
					if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
						t.Fatalf("%s[%d] = %v, want %v", what, i, a[i], b[i])
					}
				}
			}
			same("dx", gotX.Data, wantX.Data)
			for i := range gotC {
				gp, wp := gotC[i].Params(), wantC[i].Params()
				for j := range gp {
					same(fmt.Sprintf("branch %d %s grad", i, gp[j].Name), gp[j].Grad, wp[j].Grad)
				}
			}
		})
	}
}
