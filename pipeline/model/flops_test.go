package model

import (
	"math"
	"testing"

	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/scnn"
)

// handArch: one 1D channel, one 2D channel, a block of one 3x3
// convolution to 1 channel, and the 1x1 output convolution right after
// the re-injection.
func handArch(kind Kind) Arch {
	return Arch{Kind: kind, N1D: 1, N2D: 1, Blocks: [][]int{{3}}, Width: 1, Head: []int{1}, HeadWidth: 1}
}

// InferenceFLOPs of a network small enough to count by hand, on one chain
// of length 2 (h = 1 for the 3x3 kernel: 2 offsets at each position, 4 in
// all; the 1x1 kernel: 1 at each, 2 in all).
func TestInferenceFLOPsByHand(t *testing.T) {
	// CNN, 4 pixels. The block's 3x3 conv: its 2D channel 2*4*9 = 72,
	// that channel's output added 4, R and Q over the 1+1 product
	// channels 2*4*3*2 = 48, prefix sums 2*2*3 = 12, lookups 4*4 = 16:
	// 152. The 1x1 output conv: the block's channel and the 2D channel
	// 2*4*2 = 16, added 4, R and Q over the re-injection's 1+1 channels
	// 2*2*1*2 = 8, prefix sums 2*2*1 = 4, lookups 16: 48.
	// SCNN, 3 pixels, halves of the sgConv's 2 channels each: 54 + 3 +
	// 2*4*3*4 = 96 + 12 + 12 = 177, and 12 + 3 + 2*2*1*4 = 16 + 4 + 12 =
	// 47. Materialised: 2 * 4 pixels * (9*3 + 1*4) multiply-adds = 248.
	for kind, want := range map[Kind]float64{CNN: 152 + 48, SCNN: 177 + 47} {
		a := handArch(kind)
		if got := a.InferenceFLOPs(1, 2); got != want {
			t.Errorf("%s: %g FLOPs, want %g", kind, got, want)
		}
		if got := a.InferenceFLOPs(3, 2); got != 3*want {
			t.Errorf("%s, 3 chains: %g FLOPs, want %g", kind, got, 3*want)
		}
		if got := a.ConvFLOPs(1, 2); got != 248 {
			t.Errorf("%s: ConvFLOPs %g, want 248", kind, got)
		}
	}
}

// loopFLOPs counts the FLOPs of one inference pass on one chain of length
// l of the network s describes by walking the loops of scnn's
// convolutions offset by offset and pixel by pixel: the dense convolutions
// and dense parts at every stored pixel (the upper triangle for an SCNN),
// the row and column terms at every offset inside the chain.
//
// With train it counts a training step: every convolution on pixels three
// times (forward, input and kernel gradients); one by parts adds its
// dense parts' kernel gradient, the input gradient of the block output it
// reads after the re-injection, the kernel's and (where something learns
// from them) the halves' gradients at every offset inside the chain, and
// the row sums over the full map, and a CNN's column sums.
func loopFLOPs(s pairnet.Spec, l int, train bool) float64 {
	var pixels [][2]int
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			if !s.Symmetric || j >= i {
				pixels = append(pixels, [2]int{i, j})
			}
		}
	}
	denseOnce := func(k, cin, cout int) float64 {
		f := 0.0
		for range pixels {
			for t := 0; t < k*k; t++ {
				f += 2 * float64(cin*cout)
			}
		}
		return f
	}
	dense := func(k, cin, cout int) float64 {
		// A folding spConv's forward pass runs over the kernel's
		// position pairs (a, b), a <= b, where the direct pair kernel
		// takes it.
		fwd := denseOnce(k, cin, cout)
		if s.Symmetric && scnn.ForwardFoldsPairs(k, cin, cout, l) {
			fwd = 0
			for range pixels {
				for a := 0; a < k; a++ {
					for b := a; b < k; b++ {
						fwd += 2 * float64(cin*cout)
					}
				}
			}
		}
		if !train {
			return fwd
		}
		if !s.Symmetric || !scnn.FoldsPairs(k, cin, cout) {
			return fwd + 2*denseOnce(k, cin, cout)
		}
		// A folding spConv's gradients run over the pairs too.
		f := fwd
		for range pixels {
			for a := 0; a < k; a++ {
				for b := a; b < k; b++ {
					f += 2 * 2 * float64(cin*cout)
				}
			}
		}
		return f
	}
	nAfter := 0
	for _, c := range []int{s.In2D, s.Fixed2D} {
		if c > 0 {
			nAfter++
		}
	}
	// byParts: cd dense channels, a pair map of a 1D input of n channels.
	// halvesLearn: the halves' gradients are computed (an SCNN's sgConv,
	// a batchnorm, or a BiLSTM before the map).
	byParts := func(k, cout, cd, c0, n int, halvesLearn bool) float64 {
		nr, nc := n, n
		if s.Symmetric {
			nr, nc = 2*n, 2*n // the sgConv's width (MapSpec.Width 0)
		}
		f := denseOnce(k, cd, cout)
		if train {
			f += denseOnce(k, cd, cout) + denseOnce(k, c0, cout)
			for i := 0; i < l*l; i++ {
				f += float64(cout) // RS
				if !s.Symmetric {
					f += float64(cout) // CS
				}
			}
		}
		for range pixels {
			f += float64((nAfter + 4) * cout)
		}
		h := k / 2
		for i := 0; i < l; i++ {
			for t := 0; t < k; t++ {
				if p := i + t - h; p < 0 || p >= l {
					continue
				}
				for c := 0; c < k; c++ {
					f += 2 * float64((nr+nc)*cout)
					if train {
						f += 2 * float64((nr+nc)*cout) // the kernel's gradient
						if halvesLearn {
							f += 2 * float64((nr+nc)*cout)
						}
					}
				}
			}
			for e := 1; e <= k; e++ {
				f += 2 * float64(cout) // pr and pq
			}
		}
		return f
	}
	seq := s.In1D
	if s.LSTMHidden > 0 {
		seq += s.LSTMOut
	}
	pairIn := s.In2D + s.Fixed2D
	f := 0.0
	in := 2*seq + pairIn
	for bi, b := range s.Blocks {
		for c, k := range b.Kernels {
			if bi == 0 {
				f += byParts(k, b.Widths[c], pairIn, 0, seq, s.Symmetric || s.Pair.BN || s.LSTMHidden > 0)
			} else {
				f += dense(k, in, b.Widths[c])
			}
		}
		in = b.Width()
	}
	type conv struct{ k, cout int }
	var head []conv
	for _, b := range s.Head {
		for c, k := range b.Kernels {
			head = append(head, conv{k, b.Widths[c]})
		}
	}
	head = append(head, conv{s.OutKernel, 1})
	for hi, c := range head {
		if hi == 0 {
			f += byParts(c.k, c.cout, in+pairIn, in, s.In1D, s.Symmetric || s.Reinject.BN)
			in = c.cout
			continue
		}
		f += dense(c.k, in, c.cout)
		in = c.cout
	}
	return f
}

// InferenceFLOPs and TrainFLOPs agree with the loops of the pass walked
// one offset and one pixel at a time, for the shipped configurations and smaller ones,
// at lengths below, at and above the kernels' reach.
func TestInferenceFLOPsByLoops(t *testing.T) {
	var archs []Arch
	for _, kind := range []Kind{CNN, SCNN} {
		noPair := DefaultArch(kind) // no 2D input: one 2D tensor (the fixed channels)
		noPair.N2D = 0
		noHead := DefaultArch(kind) // the output convolution after the re-injection
		noHead.Head = []int{5}
		archs = append(archs, DefaultArch(kind), PaperArch(kind), handArch(kind), noPair, noHead)
	}
	for _, a := range archs {
		// From 16 columns narrow layers go by the direct method, whose
		// pair kernel folds an spConv's forward pass from 5 x 5.
		for _, l := range []int{1, 2, 3, 6, 13, 20} {
			want := loopFLOPs(a.Spec(), l, false)
			if got := a.InferenceFLOPs(1, l); math.Abs(got-want) > 1e-12*want {
				t.Errorf("%s %s %v head %v, L = %d: %g FLOPs, the loops %g", a.Kind, a.Config, a.Blocks, a.Head, l, got, want)
			}
			want = loopFLOPs(a.Spec(), l, true)
			if got := a.Spec().TrainFLOPs(1, l); math.Abs(got-want) > 1e-12*want {
				t.Errorf("%s %s %v head %v, L = %d: %g training FLOPs, the loops %g", a.Kind, a.Config, a.Blocks, a.Head, l, got, want)
			}
		}
	}
}

// At large L the convolutions by parts cost their dense channels' share
// of the materialised ones; the count is below ConvFLOPs for the shipped
// configurations at every length the bench runs; an Arch that would not
// go by halves counts ConvFLOPs on the pixels it computes.
func TestInferenceFLOPsLimits(t *testing.T) {
	// Default, per pixel: of the first block's 86 channels 6 are dense
	// (3 2D, 3 fixed), of the head's 64, 14 (8 from the block, 6): 2 *
	// (6*8*(49+25+9) + 24*8*34 + 16*8*9 + 14*8*9 + 8*9) = 25,488, plus
	// the lookups and the two 2D tensors' outputs added, (4+2)*8 per
	// convolution: 4 * 48 = 192. The row and column terms, about 2 *
	// L*k*k*80*8 per branch of the block, 2 * L*9*50*8 for the head's,
	// add about 57 per pixel at L = 2000 (the SCNN's halves are twice as
	// wide, on half the pixels: about 227).
	// Where the SCNN's spConvs go by the direct method's pair kernel,
	// their forward passes take k(k+1)/2 of the k*k positions: 2 *
	// cin*cout*k(k-1)/2 fewer each (the 5x5 and 3x3 24 -> 8, 16 -> 8,
	// and the output's 3x3 8 -> 1; 5,808 in all).
	const l = 2000
	for kind, slack := range map[Kind]float64{CNN: 60, SCNN: 240} {
		perPixel := 25488.0 + 192
		for _, c := range [][3]int{{5, 24, 8}, {3, 24, 8}, {3, 16, 8}, {3, 8, 1}} {
			if k := c[0]; kind == SCNN && scnn.ForwardFoldsPairs(k, c[1], c[2], l) {
				perPixel -= float64(2 * c[1] * c[2] * k * (k - 1) / 2)
			}
		}
		a := DefaultArch(kind)
		p := float64(l * l)
		if kind == SCNN {
			p = l * (l + 1) / 2
		}
		got := a.InferenceFLOPs(1, l) / p
		if got < perPixel || got > perPixel+slack {
			t.Errorf("default %s, L = %d: %.1f FLOPs per pixel, want %.0f..%.0f", kind, l, got, perPixel, perPixel+slack)
		}
	}
	for _, cfg := range []string{"default", "paper"} {
		for _, kind := range []Kind{CNN, SCNN} {
			a, _ := ArchByName(kind, cfg)
			for _, l := range []int{100, 300, 500, 1000, 2000} {
				inf, conv := a.InferenceFLOPs(10, l), a.ConvFLOPs(10, l)
				if kind == SCNN {
					conv *= float64(l+1) / float64(2*l) // the upper triangle
				}
				if !(inf > 0 && inf < conv) {
					t.Errorf("%s %s, L = %d: %g FLOPs executed, %g materialised", cfg, kind, l, inf, conv)
				}
			}
		}
	}
	for _, kind := range []Kind{CNN, SCNN} {
		a := DefaultArch(kind)
		a.Blocks = nil
		if a.Spec().InfersByHalves() {
			t.Fatal("an Arch without blocks goes by halves")
		}
		want := a.ConvFLOPs(2, 7)
		if kind == SCNN {
			want = want * 28 / 49
		}
		if got := a.InferenceFLOPs(2, 7); math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s without blocks: %g FLOPs, want %g", kind, got, want)
		}
	}
}
