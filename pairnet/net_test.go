package pairnet

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// rnaLike is a second instance of the description: one-hot 1D input, no
// 2D input, a pair map and a re-injected one-hot pair map with batchnorm
// and ReLU (the shape of the paper's RNA networks, much narrower).
func rnaLike(symmetric bool) Spec {
	s := Spec{Symmetric: symmetric, In1D: 5, LSTMHidden: 4, LSTMOut: 3,
		Pair:     MapSpec{BN: true, ReLU: true},
		Blocks:   []Block{{Kernels: []int{5, 3}, Widths: []int{4, 2}}, Uniform(4, 3)},
		Reinject: &MapSpec{BN: true, ReLU: true}, OutKernel: 3}
	if symmetric {
		s.Pair.Width, s.Reinject.Width = 8, 4
	}
	return s
}

// oneHotBatch draws sequences over 4 letters (channel 4 marks unknown),
// padded to the longest, with labels: (i, j) pairs when the letters are
// complementary (0-3, 1-2) and |i-j| >= 4.
func oneHotBatch(rng *rand.Rand, lengths []int) (Inputs, []float32, []float32) {
	l := 0
	for _, n := range lengths {
		l = max(l, n)
	}
	b := len(lengths)
	x := scnn.New(b, l, 5)
	labels, mask := make([]float32, b*l*l), make([]float32, b*l*l)
	for s, n := range lengths {
		seq := make([]int, n)
		for i := range seq {
			seq[i] = rng.IntN(4)
			x.Data[(s*l+i)*5+seq[i]] = 1
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				mask[(s*l+i)*l+j] = 1
				if seq[i]+seq[j] == 3 && (i-j >= 4 || j-i >= 4) {
					labels[(s*l+i)*l+j] = 1
				}
			}
		}
	}
	return Inputs{X1: x, Lengths: lengths}, labels, mask
}

// The second network trains on its own data (loss drops) in both kinds,
// and the SCNN's output is exactly symmetric.
func TestSecondNetworkTrains(t *testing.T) {
	for _, sym := range []bool{false, true} {
		net, err := New(rnaLike(sym), 3)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(4, 5))
		in, labels, mask := oneHotBatch(rng, []int{20, 14, 17})
		opt := scnn.NewAdam(net.Params(), 5e-3, 1e-5)
		loss := scnn.WeightedBCE{PosWeight: 5}
		var first, last float64
		for step := 0; step < 40; step++ {
			p := scnn.Training(2)
			y, err := net.Forward(p, in)
			if err != nil {
				t.Fatal(err)
			}
			v, g, err := loss.Forward(y, labels, mask)
			if err != nil {
				t.Fatal(err)
			}
			if step == 0 {
				first = v
			}
			last = v
			opt.ZeroGrad()
			if err := p.Backward(y, g); err != nil {
				t.Fatal(err)
			}
			opt.Step()
		}
		t.Logf("symmetric=%v: %d parameters, loss %.4f -> %.4f", sym, net.Trainable(), first, last)
		if !(last < 0.8*first) {
			t.Errorf("symmetric=%v: loss %.4f -> %.4f", sym, first, last)
		}
		if sym {
			y, err := net.Forward(nil, in)
			if err != nil {
				t.Fatal(err)
			}
			if y.Layout != scnn.Packed {
				t.Fatalf("SCNN output %s", y.Layout)
			}
			full, _ := scnn.Unpack(y)
			if a := scnn.MaxAbsAsymmetry(full); a != 0 {
				t.Errorf("SCNN output asymmetric by %g", a)
			}
		}
	}
}

// An inference pass gives what a training pass with running batchnorm
// statistics gives, with any number of workers: bit for bit for the
// SCNN; for the CNN, whose inference convolves the self-Cartesian maps by
// their halves (forwardCartesian), to float32 rounding, and bit for bit
// between worker counts. The batch's second chain is padded: its padded
// logits are 0 in both.
func TestInferenceMatchesTrainingForward(t *testing.T) {
	for _, sym := range []bool{false, true} {
		net, _ := New(rnaLike(sym), 7)
		for _, p := range net.Params() { // non-trivial running statistics
			if !p.Trainable && len(p.Value) > 1 {
				for i := range p.Value {
					p.Value[i] = 0.5 + 0.1*float32(i%5)
				}
			}
		}
		in, _, _ := oneHotBatch(rand.New(rand.NewPCG(1, 1)), []int{23, 9})
		tp := scnn.Training(1)
		tp.RunningStats = true
		want, err := net.Forward(tp, in)
		if err != nil {
			t.Fatal(err)
		}
		var first *scnn.Tensor
		for _, w := range []int{1, 2, 3} {
			got, err := net.Forward(scnn.Inference(w), in)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = got
			}
			for i := range want.Data {
				g, wv := got.Data[i], want.Data[i]
				if math.Float32bits(g) != math.Float32bits(first.Data[i]) {
					t.Fatalf("symmetric=%v: logit %d is %v with %d workers, %v with 1", sym, i, g, w, first.Data[i])
				}
				if sym && math.Float32bits(g) != math.Float32bits(wv) ||
					!sym && math.Abs(float64(g-wv)) > 1e-5*(1+math.Abs(float64(wv))) {
					t.Fatalf("symmetric=%v, %d workers: logit %d is %v, training-mode forward %v", sym, w, i, g, wv)
				}
			}
		}
	}
}

// retained returns the bytes of heap still allocated after f, whose
// result is kept alive until the measurement. Two collections: the
// kernels' workspace cache (a sync.Pool) goes at the second.
func retained(f func() any) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	keep := f()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// An inference pass keeps no activations: after it, what stays allocated
// is about the logits; a training pass keeps every layer's input for its
// backward step, many times more.
func TestInferenceKeepsNoActivations(t *testing.T) {
	net, _ := New(rnaLike(true), 1)
	in, _, _ := oneHotBatch(rand.New(rand.NewPCG(2, 2)), []int{200, 180})
	l := 200
	logits := uint64(2*l*(l+1)/2) * 4
	pairMap := 8 * logits // one 8-channel packed map
	inf := retained(func() any {
		p := scnn.Inference(2)
		y, err := net.Forward(p, in)
		if err != nil {
			t.Fatal(err)
		}
		return y
	})
	tr := retained(func() any {
		p := scnn.Training(2)
		y, err := net.Forward(p, in)
		if err != nil {
			t.Fatal(err)
		}
		return []any{p, y}
	})
	t.Logf("retained: inference %d bytes, training %d bytes (logits %d, one 8-channel map %d)", inf, tr, logits, pairMap)
	if inf > logits+pairMap/8 { // less than one channel of a map more
		t.Errorf("inference pass retains %d bytes, logits are %d", inf, logits)
	}
	if tr < 4*pairMap {
		t.Errorf("training pass retains only %d bytes: the bound above would not tell", tr)
	}
}

func TestSpecCheck(t *testing.T) {
	for name, s := range map[string]Spec{
		"no input":           {OutKernel: 3},
		"even kernel":        {In1D: 2, OutKernel: 2},
		"CNN pair width":     {In1D: 2, OutKernel: 3, Pair: MapSpec{Width: 4}},
		"ragged block":       {In1D: 2, OutKernel: 3, Blocks: []Block{{Kernels: []int{3, 5}, Widths: []int{4}}}},
		"LSTM without Dense": {In1D: 2, OutKernel: 3, LSTMHidden: 4},
	} {
		if _, err := New(s, 1); !errors.Is(err, ErrSpec) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The paper's RNA networks (Willmott's CNN and the authors' SCNN, as
// docs/rna.md describes them) are instances of the description. Their
// trainable parameters, counted by hand:
//
//	BiLSTM 5 -> 75 per direction, one bias per gate: 2*(5*300 + 75*300 + 300) = 48,600
//	Dense 150 -> 15: 2,265
//	CNN:  13x13, 9x9, 5x5 on 40 -> 20, 20, 10: 210,050; BN 100
//	      9x9, 5x5 on 50 -> 20, 20: 106,040; BN 80; 5x5 on 40 -> 20: 20,020; BN 40
//	      3x3 on 20 + 10 (one-hot product) -> 1: 271            total 387,466
//	SCNN: sgConv 20 -> 40: 840; BN 80; spConv blocks 114,850 + 100, 60,040 + 80,
//	      12,020 + 40; re-injection sgConv 5 -> 20: 120, BN 40; 3x3 on 40 -> 1: 241
//	                                                            total 239,316
//
// (The paper reports 387,798 and 239,198.)
func TestPaperRNANetworksAreInstances(t *testing.T) {
	rna := func(sym bool) Spec {
		s := Spec{Symmetric: sym, In1D: 5, LSTMHidden: 75, LSTMOut: 15,
			Blocks: []Block{{Kernels: []int{13, 9, 5}, Widths: []int{20, 20, 10}},
				{Kernels: []int{9, 5}, Widths: []int{20, 20}}, Uniform(20, 5)},
			Reinject: &MapSpec{}, OutKernel: 3}
		if sym {
			s.Pair = MapSpec{Width: 40, BN: true, ReLU: true}
			s.Reinject = &MapSpec{Width: 20, BN: true, ReLU: true}
		}
		return s
	}
	for sym, want := range map[bool]int{false: 387466, true: 239316} {
		n, err := New(rna(sym), 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Trainable(); got != want {
			t.Errorf("symmetric=%v: %d trainable parameters, want %d", sym, got, want)
		}
	}
}

// proteinLike has the protein networks' pair maps: batchnorm without
// ReLU on the first, a plain re-injection, and 2D and fixed pair inputs,
// so that inference takes forwardCartesian for the CNN and the SCNN.
func proteinLike(symmetric bool) Spec {
	s := Spec{Symmetric: symmetric, In1D: 5, In2D: 2, Fixed2D: 1, LSTMHidden: 4, LSTMOut: 3,
		Pair:     MapSpec{BN: true},
		Blocks:   []Block{{Kernels: []int{5, 3}, Widths: []int{4, 2}}, Uniform(4, 3)},
		Reinject: &MapSpec{}, Head: []Block{Uniform(3, 3)}, OutKernel: 3}
	if symmetric {
		s.Pair.Width, s.Reinject.Width = 8, 4
	}
	return s
}

// Inference by halves (forwardCartesian) gives what the training-mode
// forward pass over the materialised maps gives, to float32 rounding, at
// every logit of a padded batch, and the same bits with any number of
// workers; for both kinds, with and without the head block after the
// re-injection.
func TestInferenceByHalvesMatchesMaterialised(t *testing.T) {
	for _, sym := range []bool{false, true} {
		for _, head := range []bool{true, false} {
			s := proteinLike(sym)
			if !head {
				s.Head = nil
			}
			net, err := New(s, 11)
			if err != nil {
				t.Fatal(err)
			}
			if !net.byHalves(scnn.Inference(1)) {
				t.Fatalf("symmetric=%v head=%v: inference does not go by halves: the test checks nothing", sym, head)
			}
			for _, p := range net.Params() { // non-trivial running statistics
				if !p.Trainable && len(p.Value) > 1 {
					for i := range p.Value {
						p.Value[i] = 0.5 + 0.1*float32(i%5)
					}
				}
			}
			rng := rand.New(rand.NewPCG(2, 2))
			in, _, _ := oneHotBatch(rng, []int{23, 9})
			in.X2, in.Fixed = randomPairMap(rng, sym, 2, 23, 2), randomPairMap(rng, sym, 2, 23, 1)
			tp := scnn.Training(1)
			tp.RunningStats = true
			net.materialize = true
			want, err := net.Forward(tp, in)
			net.materialize = false
			if err != nil {
				t.Fatal(err)
			}
			var first *scnn.Tensor
			worst := 0.0
			for _, w := range []int{1, 2, 3} {
				got, err := net.Forward(scnn.Inference(w), in)
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = got
				}
				for i := range want.Data {
					g, wv := float64(got.Data[i]), float64(want.Data[i])
					if got.Data[i] != first.Data[i] {
						t.Fatalf("symmetric=%v head=%v: logit %d is %v with %d workers, %v with 1", sym, head, i, g, w, first.Data[i])
					}
					d := math.Abs(g-wv) / (1 + math.Abs(wv))
					worst = max(worst, d)
					if d > 1e-5 {
						t.Fatalf("symmetric=%v head=%v, %d workers: logit %d is %v, materialised %v", sym, head, w, i, g, wv)
					}
				}
			}
			t.Logf("symmetric=%v head=%v: worst relative difference %.2g", sym, head, worst)
		}
	}
}

// randomPairMap is a symmetric b x l x l map of c normal channels, as the
// protein pair inputs are: packed for a symmetric network, full
// otherwise.
func randomPairMap(rng *rand.Rand, sym bool, b, l, c int) *scnn.Tensor {
	var x *scnn.Tensor
	if sym {
		x = scnn.NewPacked(b, l, c)
	} else {
		x = scnn.New(b, l, l, c)
	}
	for i := range x.Data {
		x.Data[i] = float32(rng.NormFloat64())
	}
	if !sym {
		for s := 0; s < b; s++ {
			for i := 0; i < l; i++ {
				for j := 0; j < i; j++ {
					copy(x.Data[((s*l+i)*l+j)*c:][:c], x.Data[((s*l+j)*l+i)*c:][:c])
				}
			}
		}
	}
	return x
}

// A training pass by halves (forwardCartesian, scnn's backward steps of
// the halves) gives the logits, every parameter gradient and the running
// statistics of a training pass over the materialised maps, to float32
// rounding: both kinds, with and without the head block after the
// re-injection, batch statistics and running ones, the CNN's product with
// and without ReLU, on a padded batch with 2D and fixed pair inputs, and
// on a batch of one residue and an empty chain (a map narrower than the
// kernels' reach).
func TestTrainingByHalvesMatchesMaterialised(t *testing.T) {
	for _, sym := range []bool{false, true} {
		for _, head := range []bool{true, false} {
			for _, running := range []bool{false, true} {
				for _, relu := range []bool{false, true} {
					for _, lengths := range [][]int{{17, 11, 6}, {1, 0}} {
						if relu && (sym || !head) || len(lengths) == 2 && (relu || running) {
							continue // a CNN's rectified product halves once; the short batch once a kind and head
						}
						s := proteinLike(sym)
						if !head {
							s.Head = nil
						}
						s.Pair.ReLU = relu
						name := fmt.Sprintf("symmetric=%v head=%v running=%v relu=%v lengths=%v", sym, head, running, relu, lengths)
						type result struct {
							logits []float32
							grads  map[string][]float32
							state  map[string][]float32
						}
						run := func(materialize bool) result {
							net, err := New(s, 5)
							if err != nil {
								t.Fatal(err)
							}
							net.materialize = materialize
							if !materialize && !net.byHalves(scnn.Training(1)) {
								t.Fatalf("%s: training does not go by halves: the test checks nothing", name)
							}
							for _, p := range net.Params() {
								if !p.Trainable && len(p.Value) > 1 {
									for i := range p.Value {
										p.Value[i] = 0.5 + 0.1*float32(i%5)
									}
								}
							}
							rng := rand.New(rand.NewPCG(3, 3))
							in, _, _ := oneHotBatch(rng, lengths)
							l := slices.Max(lengths)
							in.X2, in.Fixed = randomPairMap(rng, sym, len(lengths), l, 2), randomPairMap(rng, sym, len(lengths), l, 1)
							p := scnn.Training(2)
							p.RunningStats = running
							y, err := net.Forward(p, in)
							if err != nil {
								t.Fatal(err)
							}
							dy := scnn.ZerosLike(y)
							for i := range dy.Data {
								dy.Data[i] = float32(rng.NormFloat64())
							}
							if err := p.Backward(y, dy); err != nil {
								t.Fatal(err)
							}
							r := result{logits: y.Data, grads: map[string][]float32{}, state: map[string][]float32{}}
							for _, q := range net.Params() {
								if q.Trainable {
									r.grads[q.Name] = q.Grad
								} else {
									r.state[q.Name] = q.Value
								}
							}
							return r
						}
						want, got := run(true), run(false)
						// A gradient that is 0 but for rounding (a bias before a
						// batchnorm: a sum of terms that cancel) is allowed noise
						// of 1e-3 of the largest gradient of the network.
						global := 0.0
						for _, w := range want.grads {
							for _, v := range w {
								global = max(global, math.Abs(float64(v)))
							}
						}
						worst := 0.0
						close := func(what string, g, w []float32, tol, floor float64) {
							if len(g) != len(w) {
								t.Fatalf("%s: %s has %d values, materialised %d", name, what, len(g), len(w))
							}
							scale := 0.0
							for _, v := range w {
								scale = max(scale, math.Abs(float64(v)))
							}
							for i := range w {
								d := math.Abs(float64(g[i] - w[i]))
								if d > 0 {
									worst = max(worst, d/(tol*scale+floor))
								}
								if d > tol*scale+floor {
									t.Fatalf("%s: %s[%d] is %v, materialised %v (largest %v)", name, what, i, g[i], w[i], scale)
								}
							}
						}
						close("logits", got.logits, want.logits, 1e-5, 0)
						for k, w := range want.grads {
							close("gradient of "+k, got.grads[k], w, 2e-4, 1e-3*global)
						}
						for k, w := range want.state {
							close(k, got.state[k], w, 1e-5, 0)
						}
						t.Logf("%s: the largest difference is %.2g of its allowance", name, worst)
					}
				}
			}
		}
	}
}
