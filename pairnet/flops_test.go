package pairnet

import "testing"

// ConvMACs by hand on a network with unequal branch widths, a
// re-injection and a head; InferenceFLOPs of a network that materialises
// its maps (an SCNN pair map with ReLU) is ConvMACs on the triangle.
func TestConvMACsByHand(t *testing.T) {
	s := Spec{Symmetric: true, In1D: 4, In2D: 2, LSTMHidden: 3, LSTMOut: 2,
		Pair:     MapSpec{Width: 10, BN: true, ReLU: true},
		Blocks:   []Block{{Kernels: []int{5, 3}, Widths: []int{4, 2}}, Uniform(3, 3)},
		Reinject: &MapSpec{Width: 5, BN: true, ReLU: true},
		Head:     []Block{Uniform(2, 1)}, OutKernel: 3}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	// Block 1 reads 10 + 2 = 12 channels: 25*12*4 + 9*12*2 = 1,416.
	// Block 2 reads 6: 9*6*3 = 162. The head reads 3 + 5 + 2 = 10:
	// 1*10*2 = 20. The output reads 2: 9*2*1 = 18. In all 1,616.
	if got := s.ConvMACs(); got != 1616 {
		t.Errorf("ConvMACs = %v, want 1616", got)
	}
	if s.InfersByHalves() {
		t.Fatal("an sgConv pair map with ReLU infers by halves")
	}
	if got, want := s.InferenceFLOPs(3, 7), 2*1616*float64(3*7*8/2); got != want {
		t.Errorf("InferenceFLOPs = %v, want %v", got, want)
	}
	// A training step: 3x the forward pass, but for the 5 x 5 spConv to
	// 4 channels, which folds its kernel's position pairs
	// (scnn.FoldsPairs): its two gradients on 15 of 25 positions, 2*10*
	// 12*4 = 960 MACs fewer: 3*1,616 - 960 = 3,888. The others have
	// fewer than 4 output channels and too few channel pairs to fold.
	if got, want := s.TrainFLOPs(3, 7), 2*3888*float64(3*7*8/2); got != want {
		t.Errorf("TrainFLOPs = %v, want %v", got, want)
	}
	// With a block of 20 -> 8 twice: the 5 x 5 spConv (160 channel pairs)
	// and the 3 x 3 one (160) fold, their gradients on 15 of 25 and 6 of
	// 9 positions; the output convolution (16 -> 1) does not:
	// 25*20*8 + 2*15*20*8 + 9*20*8 + 2*6*20*8 + 3*9*16 = 12,592, exactly.
	f := Spec{Symmetric: true, In1D: 4, LSTMHidden: 3, LSTMOut: 2,
		Pair:   MapSpec{Width: 20, BN: true, ReLU: true},
		Blocks: []Block{{Kernels: []int{5, 3}, Widths: []int{8, 8}}}, OutKernel: 3}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	if got, want := f.TrainFLOPs(3, 7), 2*12592*float64(3*7*8/2); got != want {
		t.Errorf("TrainFLOPs with folding spConvs = %v, want %v", got, want)
	}
	c := s
	c.Symmetric, c.Pair, c.Reinject = false, MapSpec{BN: true}, &MapSpec{}
	// The CNN's product: block 1 reads 2*(4+2) + 2 = 14 channels; the
	// head 3 + 8 + 2 = 13.
	if got, want := c.ConvMACs(), float64(25*14*4+9*14*2+162+13*2+18); got != want {
		t.Errorf("CNN ConvMACs = %v, want %v", got, want)
	}
	if !c.InfersByHalves() || c.InferenceFLOPs(1, 50) >= 2*c.ConvMACs()*2500 {
		t.Errorf("the CNN infers by halves %v with %v FLOPs, materialised %v", c.InfersByHalves(), c.InferenceFLOPs(1, 50), 2*c.ConvMACs()*2500)
	}
}
