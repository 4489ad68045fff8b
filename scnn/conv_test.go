package scnn

import (
	"fmt"
	"testing"
)

// Convolutions are linear in each parameter and input element, so central
// differences are exact up to float32 rounding of the forward pass; a large
// step (0.5) keeps that rounding (~1e-6 relative per output, summed in
// float64) far below the 1e-3 tolerance.
const linEps, linTol = 0.5, 1e-3

// Channel pairs: 3 -> 4 runs im2col forward; 5 -> 2 (Cout <= Cin/2) the
// output-side forward (kern.ConvGeom.UseOutputSide).
var gradChannels = [][2]int{{3, 4}, {5, 2}}

func TestConv2DGradient(t *testing.T) {
	for _, k := range []int{1, 3, 5} {
		for _, ch := range gradChannels {
			t.Run(fmt.Sprintf("k%d/%dto%d", k, ch[0], ch[1]), func(t *testing.T) {
				rng := newRNG(uint64(k))
				c := must[*Conv2D](t)(NewConv2D("c", k, ch[0], ch[1], rng))
				x := randTensor(rng, 2, 6, 5, ch[0])
				r := randTensor(rng, 2, 6, 5, ch[1])
				f := func(p *Pass) (*Tensor, error) { return c.Apply(p, x) }
				loss := dotLoss(t, f, r, false)
				dx := backward(t, f, r, x)[0]
				checkGrad(t, "W", c.W.Value, c.W.Grad, nil, linEps, linTol, loss)
				checkGrad(t, "b", c.B.Value, c.B.Grad, nil, linEps, linTol, loss)
				checkGrad(t, "x", x.Data, dx.Data, nil, linEps, linTol, loss)
			})
		}
	}
}

func TestConv2DKernelSizes(t *testing.T) {
	rng := newRNG(1)
	for k := 1; k <= MaxKernel; k += 2 {
		if _, err := NewConv2D("c", k, 1, 1, rng); err != nil {
			t.Errorf("k=%d: %v", k, err)
		}
	}
	for _, k := range []int{0, 2, 17, -1} {
		if _, err := NewConv2D("c", k, 1, 1, rng); err == nil {
			t.Errorf("k=%d accepted", k)
		}
	}
}

// A 1x1 convolution with an identity kernel copies its input: a direct check
// that the GEMM and im2col layout agree with the documented one.
func TestConv2DIdentity(t *testing.T) {
	rng := newRNG(2)
	c := must[*Conv2D](t)(NewConv2D("c", 3, 2, 2, rng))
	clear(c.W.Value)
	c.W.Value[((1*3+1)*2+0)*2+0] = 1 // centre tap, channel 0 -> 0
	c.W.Value[((1*3+1)*2+1)*2+1] = 1
	c.B.Value[1] = 10
	x := randTensor(rng, 1, 4, 4, 2)
	y := must[*Tensor](t)(c.Apply(nil, x))
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			if y.At(0, i, j, 0) != x.At(0, i, j, 0) || y.At(0, i, j, 1) != x.At(0, i, j, 1)+10 {
				t.Fatalf("(%d,%d): got %v %v from %v %v", i, j, y.At(0, i, j, 0), y.At(0, i, j, 1), x.At(0, i, j, 0), x.At(0, i, j, 1))
			}
		}
	}
}

func TestSymPresConvGradient(t *testing.T) {
	for _, k := range []int{1, 3, 5} {
		for _, ch := range gradChannels {
			t.Run(fmt.Sprintf("k%d/%dto%d", k, ch[0], ch[1]), func(t *testing.T) {
				rng := newRNG(uint64(10 + k))
				c := must[*SymPresConv](t)(NewSymPresConv("sp", k, ch[0], ch[1], rng))
				x := randPacked(rng, 2, 7, ch[0])
				r := randPacked(rng, 2, 7, ch[1])
				f := func(p *Pass) (*Tensor, error) { return c.Apply(p, x) }
				loss := dotLoss(t, f, r, false)
				dx := backward(t, f, r, x)[0]
				checkGrad(t, "R", c.R.Value, c.R.Grad, nil, linEps, linTol, loss)
				checkGrad(t, "b", c.B.Value, c.B.Grad, nil, linEps, linTol, loss)
				// A stored off-diagonal element is two entries of the full map.
				checkGrad(t, "x", x.Data, dx.Data, packedWeights(x), linEps, linTol, loss)
			})
		}
	}
}

// The triangle-only spConv equals an ordinary convolution with the tied
// kernel Q on the full map, forward and backward, and its dR equals the
// paper's rule applied to the full convolution's dQ.
func TestSymPresConvTriangleMatchesFull(t *testing.T) {
	for _, k := range []int{1, 3, 5, 7} {
		for _, ch := range [][2]int{{4, 5}, {8, 3}} {
			t.Run(fmt.Sprintf("k%d/%dto%d", k, ch[0], ch[1]), func(t *testing.T) {
				rng := newRNG(uint64(20 + k))
				const b, l = 3, 11
				cin, cout := ch[0], ch[1]
				sp := must[*SymPresConv](t)(NewSymPresConv("sp", k, cin, cout, rng))
				randn(sp.B.Value, rng)
				full := must[*Conv2D](t)(NewConv2D("full", k, cin, cout, rng))
				copy(full.W.Value, sp.Kernel())
				copy(full.B.Value, sp.B.Value)

				xp := randPacked(rng, b, l, cin)
				xd := must[*Tensor](t)(Unpack(xp))
				yp := must[*Tensor](t)(sp.Apply(nil, xp))
				yd := must[*Tensor](t)(full.Apply(nil, xd))
				if a := MaxAbsAsymmetry(yd); a > 1e-5 {
					t.Errorf("full convolution with tied kernel: asymmetry %.3g", a)
				}
				assertClose(t, "forward", must[*Tensor](t)(Unpack(yp)).Data, yd.Data, 1e-5)

				dyp := randPacked(rng, b, l, cout)
				dyd := must[*Tensor](t)(Unpack(dyp))
				dxp := backward(t, func(p *Pass) (*Tensor, error) { return sp.Apply(p, xp) }, dyp, xp)[0]
				dxd := backward(t, func(p *Pass) (*Tensor, error) { return full.Apply(p, xd) }, dyd, xd)[0]
				assertClose(t, "dx", must[*Tensor](t)(Unpack(dxp)).Data, dxd.Data, 1e-5)
				if a := MaxAbsAsymmetry(dxd); a > 1e-4 {
					t.Errorf("full dx of a symmetric gradient is not symmetric: %.3g", a)
				}

				// Paper: dR[a,b] = dQ[a,b] + dQ[b,a] (a > b), dR[a,a] = dQ[a,a].
				m := cin * cout
				want := make([]float32, len(sp.R.Grad))
				for a := 0; a < k; a++ {
					for bb := 0; bb <= a; bb++ {
						for i := 0; i < m; i++ {
							v := full.W.Grad[(a*k+bb)*m+i]
							if a != bb {
								v += full.W.Grad[(bb*k+a)*m+i]
							}
							want[lowerIndex(a, bb)*m+i] = v
						}
					}
				}
				assertClose(t, "dR vs paper rule on dQ", sp.R.Grad, want, 1e-5)
				assertClose(t, "db", sp.B.Grad, full.B.Grad, 1e-5)
			})
		}
	}
}

func TestSymGenConvGradient(t *testing.T) {
	for _, k := range []int{1, 3} {
		t.Run(fmt.Sprintf("k%d", k), func(t *testing.T) {
			rng := newRNG(uint64(30 + k))
			c := must[*SymGenConv](t)(NewSymGenConv("sg", k, 3, 4, rng))
			x := randTensor(rng, 2, 6, 3)
			r := randPacked(rng, 2, 6, 4)
			f := func(p *Pass) (*Tensor, error) { return c.Apply(p, x) }
			loss := dotLoss(t, f, r, false)
			dx := backward(t, f, r, x)[0]
			checkGrad(t, "S", c.S.Value, c.S.Grad, nil, linEps, linTol, loss)
			checkGrad(t, "b", c.B.Value, c.B.Grad, nil, linEps, linTol, loss)
			checkGrad(t, "x", x.Data, dx.Data, nil, linEps, linTol, loss)
		})
	}
}

// sgConv equals the explicit self-Cartesian product followed by an ordinary
// convolution with the tied kernel W; that full output is symmetric; and dS
// equals Theorem 2 (sum of the four, or two, tied dW entries) applied to the
// full convolution's dW. For k = 1 this checks the outer-sum path.
func TestSymGenConvMatchesSelfCartesianConv(t *testing.T) {
	for _, k := range []int{1, 3, 5} {
		t.Run(fmt.Sprintf("k%d", k), func(t *testing.T) {
			rng := newRNG(uint64(40 + k))
			const b, l, n, f = 3, 9, 4, 6
			sg := must[*SymGenConv](t)(NewSymGenConv("sg", k, n, f, rng))
			randn(sg.B.Value, rng)
			full := must[*Conv2D](t)(NewConv2D("full", k, 2*n, f, rng))
			copy(full.W.Value, sg.Kernel())
			copy(full.B.Value, sg.B.Value)
			x := randTensor(rng, b, l, n)
			y := must[*Tensor](t)(sg.Apply(nil, x))
			viaProduct := func(p *Pass) (*Tensor, error) {
				sc, err := SelfCartesian(p, x)
				if err != nil {
					return nil, err
				}
				return full.Apply(p, sc)
			}
			yd := must[*Tensor](t)(viaProduct(nil))
			if a := MaxAbsAsymmetry(yd); a > 1e-5 {
				t.Errorf("self-Cartesian conv with tied kernel: asymmetry %.3g", a)
			}
			assertClose(t, "forward", must[*Tensor](t)(Unpack(y)).Data, yd.Data, 1e-5)

			dyp := randPacked(rng, b, l, f)
			dx := backward(t, func(p *Pass) (*Tensor, error) { return sg.Apply(p, x) }, dyp, x)[0]
			dxd := backward(t, viaProduct, must[*Tensor](t)(Unpack(dyp)), x)[0]
			assertClose(t, "dx", dx.Data, dxd.Data, 1e-5)

			m := n * f
			want := make([]float32, len(sg.S.Grad))
			dw := full.W.Grad
			for a := 0; a < k; a++ {
				for bb := 0; bb <= a; bb++ {
					for i := 0; i < m; i++ {
						v := dw[(a*k+bb)*2*m+i] + dw[(a*k+bb)*2*m+m+i]
						if a != bb {
							v += dw[(bb*k+a)*2*m+i] + dw[(bb*k+a)*2*m+m+i]
						}
						want[lowerIndex(a, bb)*m+i] = v
					}
				}
			}
			assertClose(t, "dS vs Theorem 2 on dW", sg.S.Grad, want, 1e-5)
			assertClose(t, "db", sg.B.Grad, full.B.Grad, 1e-5)
		})
	}
}

func TestSelfCartesian(t *testing.T) {
	rng := newRNG(50)
	x := randTensor(rng, 2, 5, 3)
	y := must[*Tensor](t)(SelfCartesian(nil, x))
	for b := 0; b < 2; b++ {
		for i := 0; i < 5; i++ {
			for j := 0; j < 5; j++ {
				for k := 0; k < 3; k++ {
					if y.At(b, i, j, k) != x.At(b, i, k) || y.At(b, i, j, 3+k) != x.At(b, j, k) {
						t.Fatalf("y[%d,%d,%d] is not [x_i, x_j]", b, i, j)
					}
				}
			}
		}
	}
	r := randTensor(rng, 2, 5, 5, 6)
	f := func(p *Pass) (*Tensor, error) { return SelfCartesian(p, x) }
	dx := backward(t, f, r, x)[0]
	checkGrad(t, "x", x.Data, dx.Data, nil, linEps, linTol, dotLoss(t, f, r, false))
}

func TestFreeParameterCounts(t *testing.T) {
	rng := newRNG(60)
	for _, tc := range []struct{ c, n, f int }{{1, 80, 32}, {3, 4, 5}, {5, 64, 64}, {13, 10, 7}} {
		sg := must[*SymGenConv](t)(NewSymGenConv("sg", tc.c, tc.n, tc.f, rng))
		if got, want := len(sg.S.Value), tc.c*(tc.c+1)*tc.n*tc.f/2; got != want {
			t.Errorf("sgConv C=%d n=%d F=%d: %d free kernel values, want C(C+1)nF/2 = %d", tc.c, tc.n, tc.f, got, want)
		}
		sp := must[*SymPresConv](t)(NewSymPresConv("sp", tc.c, tc.n, tc.f, rng))
		if got, want := len(sp.R.Value), tc.c*(tc.c+1)*tc.n*tc.f/2; got != want {
			t.Errorf("spConv C=%d m=%d F=%d: %d free kernel values, want C(C+1)mF/2 = %d", tc.c, tc.n, tc.f, got, want)
		}
		// Every free value is used: the tied kernel has exactly as many
		// distinct positions as there are free values.
		if got := CountTrainable(sp); got != len(sp.R.Value)+tc.f {
			t.Errorf("CountTrainable(spConv) = %d", got)
		}
	}
}

// ForwardBranches equals Concat of the separate results, dense and packed,
// on the shared-im2col path (Cout > Cin/2) and the output-side one, and
// its backward step equals the sum of the branches' own.
func TestForwardBranches(t *testing.T) {
	for _, ch := range [][2]int{{3, 4}, {6, 2}} {
		for _, packed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dto%d/packed=%v", ch[0], ch[1], packed), func(t *testing.T) {
				rng := newRNG(30)
				cin, cout := ch[0], ch[1]
				var convs []BranchConv
				var x *Tensor
				for _, k := range []int{5, 3, 1} {
					if packed {
						convs = append(convs, must[*SymPresConv](t)(NewSymPresConv("s", k, cin, cout, rng)))
					} else {
						convs = append(convs, must[*Conv2D](t)(NewConv2D("c", k, cin, cout, rng)))
					}
				}
				if packed {
					x = randPacked(rng, 2, 9, cin)
				} else {
					x = randTensor(rng, 2, 9, 9, cin)
				}
				got := must[*Tensor](t)(ForwardBranches(nil, x, convs...))
				var outs []*Tensor
				for _, c := range convs {
					outs = append(outs, must[*Tensor](t)(ForwardBranches(nil, x, c)))
				}
				want := must[*Tensor](t)(Concat(nil, outs...))
				if !SameShape(got, want) {
					t.Fatalf("shape %s %v, want %s %v", got.Layout, got.Shape, want.Layout, want.Shape)
				}
				assertClose(t, "joined output", got.Data, want.Data, 1e-5)
				parts := must[[]*Tensor](t)(SplitChannels(got, cout, cout, cout))
				for i, p := range parts {
					assertClose(t, "split", p.Data, outs[i].Data, 1e-5)
				}
				// The joined backward step equals the branches' own, summed.
				r := randLike(rng, got)
				dx := backward(t, func(p *Pass) (*Tensor, error) { return ForwardBranches(p, x, convs...) }, r, x)[0]
				rparts := must[[]*Tensor](t)(SplitChannels(r, cout, cout, cout))
				sum := ZerosLike(x)
				for i, c := range convs {
					d := backward(t, func(p *Pass) (*Tensor, error) { return ForwardBranches(p, x, c) }, rparts[i], x)[0]
					for k, v := range d.Data {
						sum.Data[k] += v
					}
				}
				assertClose(t, "joined dx", dx.Data, sum.Data, 1e-4)
			})
		}
	}
	if _, err := ForwardBranches(nil, randTensor(newRNG(1), 1, 3, 3, 2)); err == nil {
		t.Error("no convolutions accepted")
	}
	if _, err := SplitChannels(randTensor(newRNG(1), 1, 3, 3, 4), 1, 2); err == nil {
		t.Error("widths 1+2 of 4 channels accepted")
	}
}
