package scnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func randBatchNorm(r *rand.Rand, c int) *BatchNorm2D {
	bn := NewBatchNorm2D("bn", c)
	for k := 0; k < c; k++ {
		bn.Gamma.Value[k] = float32(0.5 + r.Float64())
		bn.Beta.Value[k] = float32(r.NormFloat64())
		bn.RunMean.Value[k] = float32(r.NormFloat64())
		bn.RunVar.Value[k] = float32(0.2 + r.Float64())
	}
	return bn
}

// The halves are the batchnormed, rectified self-Cartesian product's,
// bit for bit.
func TestCartesianHalvesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const b, l, n = 2, 9, 5
	x := randTensor(r, b, l, n)
	for _, relu := range []bool{false, true} {
		bn := randBatchNorm(r, 2*n)
		p := Inference(2)
		row, col, err := CartesianHalves(p, x, nil, bn, relu)
		if err != nil {
			t.Fatal(err)
		}
		y, err := SelfCartesian(p, x)
		if err != nil {
			t.Fatal(err)
		}
		if y, err = bn.ApplyInPlace(p, y, nil); err != nil {
			t.Fatal(err)
		}
		if relu {
			y = ReLUInPlace(p, y)
		}
		for s := 0; s < b; s++ {
			for i := 0; i < l; i++ {
				for j := 0; j < l; j++ {
					px := y.Data[((s*l+i)*l+j)*2*n:][:2*n]
					for c := 0; c < n; c++ {
						if px[c] != row.Data[(s*l+i)*n+c] || px[n+c] != col.Data[(s*l+j)*n+c] {
							t.Fatalf("relu %v: pixel (%d,%d,%d) channel %d differs", relu, s, i, j, c)
						}
					}
				}
			}
		}
	}
	if _, _, err := CartesianHalves(Training(1), x, []int{2}, nil, false); err == nil {
		t.Error("Cartesian halves with a length for a sample the batch lacks")
	}
}

// materialise builds the map m describes.
func materialise(m CartesianMap) *Tensor {
	b, l, c0, nr, nc, err := m.check()
	if err != nil {
		panic(err)
	}
	cin := m.Channels()
	x := New(b, l, l, cin)
	for s := 0; s < b; s++ {
		n := l
		if m.Lengths != nil {
			n = m.Lengths[s]
		}
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				q := (s*l+i)*l + j
				px := x.Data[q*cin : (q+1)*cin]
				if m.Before != nil {
					copy(px, m.Before.Data[q*c0:(q+1)*c0])
				}
				if i < n && j < n {
					copy(px[c0:], m.Row.Data[(s*l+i)*nr:(s*l+i+1)*nr])
					copy(px[c0+nr:], m.Col.Data[(s*l+j)*nc:(s*l+j+1)*nc])
				}
				ch := c0 + nr + nc
				for _, a := range m.After {
					ca := a.Shape[3]
					copy(px[ch:], a.Data[q*ca:(q+1)*ca])
					ch += ca
				}
			}
		}
	}
	return x
}

// The convolutions of the map by parts equal those of the materialised
// map at every pixel, padded ones included, to float32 rounding: every
// kernel size, maps smaller than the kernel, padded batches, with and
// without the dense parts.
func TestForwardBranchesCartesian(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	for _, tc := range []struct {
		l, nr, c0  int
		after      []int
		lengths    []int
		kernels    []int
		couts      []int
		singleConv bool
	}{
		{l: 12, nr: 6, after: []int{3, 3}, kernels: []int{7, 5, 3}, couts: []int{4, 4, 4}},
		{l: 12, nr: 6, c0: 5, after: []int{2}, lengths: []int{12, 8}, kernels: []int{3}, couts: []int{6}},
		{l: 4, nr: 3, kernels: []int{7, 1}, couts: []int{2, 3}, lengths: []int{4, 2}},
		{l: 9, nr: 4, c0: 3, kernels: []int{5}, couts: []int{5}},
	} {
		name := fmt.Sprintf("L%d_k%v_c0%d_after%v_len%v", tc.l, tc.kernels, tc.c0, tc.after, tc.lengths)
		t.Run(name, func(t *testing.T) {
			const b = 2
			m := CartesianMap{Row: randTensor(r, b, tc.l, tc.nr), Col: randTensor(r, b, tc.l, tc.nr), Lengths: tc.lengths}
			if tc.c0 > 0 {
				m.Before = randTensor(r, b, tc.l, tc.l, tc.c0)
			}
			for _, c := range tc.after {
				m.After = append(m.After, randTensor(r, b, tc.l, tc.l, c))
			}
			cin := m.Channels()
			var convs []*Conv2D
			var branch []BranchConv
			for i, k := range tc.kernels {
				c, err := NewConv2D(fmt.Sprintf("conv%d", i), k, cin, tc.couts[i], r)
				if err != nil {
					t.Fatal(err)
				}
				randn(c.B.Value, r)
				convs = append(convs, c)
				branch = append(branch, c)
			}
			p := Inference(2)
			got, err := ForwardBranchesCartesian(p, m, convs...)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ForwardBranches(p, materialise(m), branch...)
			if err != nil {
				t.Fatal(err)
			}
			total := want.Shape[3]
			worst := 0.0
			for s := 0; s < b; s++ {
				for i := 0; i < tc.l; i++ {
					for j := 0; j < tc.l; j++ {
						q := ((s*tc.l+i)*tc.l + j) * total
						for o := 0; o < total; o++ {
							g, w := float64(got.Data[q+o]), float64(want.Data[q+o])
							d := math.Abs(g-w) / (1 + math.Abs(w))
							worst = max(worst, d)
							if d > 1e-5 {
								t.Fatalf("pixel (%d,%d,%d) channel %d: %v, materialised %v", s, i, j, o, g, w)
							}
						}
					}
				}
			}
			t.Logf("worst relative difference %.2g", worst)
		})
	}
}

func TestForwardBranchesCartesianErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	m := CartesianMap{Row: randTensor(r, 1, 5, 2), Col: randTensor(r, 1, 5, 2)}
	c, _ := NewConv2D("c", 3, 5, 2, r) // one channel too many
	if _, err := ForwardBranchesCartesian(Inference(1), m, c); err == nil {
		t.Error("channel mismatch accepted")
	}
	c, _ = NewConv2D("c", 3, 4, 2, r)
	m.Lengths = []int{6}
	if _, err := ForwardBranchesCartesian(Inference(1), m, c); err == nil {
		t.Error("length beyond the map accepted")
	}
}

// The SCNN's pair map: the halves of an sgConv of kernel 1 and a
// batchnorm sum to the materialised (masked, batchnormed) map, and the
// spConvs of the map by parts equal those of the materialised map at
// every stored pixel, to float32 rounding.
func TestForwardBranchesSymCartesian(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	for _, tc := range []struct {
		l, n, f, c0 int
		after       []int
		lengths     []int
		kernels     []int
	}{
		{l: 12, n: 5, f: 6, after: []int{3, 3}, kernels: []int{7, 5, 3}},
		{l: 10, n: 4, f: 5, c0: 4, after: []int{2}, lengths: []int{10, 6}, kernels: []int{3}},
		{l: 4, n: 3, f: 3, kernels: []int{7, 1}, lengths: []int{4, 2}},
	} {
		t.Run(fmt.Sprintf("L%d_k%v_c0%d_after%v_len%v", tc.l, tc.kernels, tc.c0, tc.after, tc.lengths), func(t *testing.T) {
			const b = 2
			x := randTensor(r, b, tc.l, tc.n)
			sg, err := NewSymGenConv("sg", 1, tc.n, tc.f, r)
			if err != nil {
				t.Fatal(err)
			}
			randn(sg.B.Value, r)
			bn := randBatchNorm(r, tc.f)
			p := Inference(2)
			row, col, err := OuterSumHalves(p, x, nil, sg, bn)
			if err != nil {
				t.Fatal(err)
			}
			mat, err := sg.Apply(p, x)
			if err != nil {
				t.Fatal(err)
			}
			if mat, err = MaskPixels(p, mat, tc.lengths); err != nil {
				t.Fatal(err)
			}
			if mat, err = bn.ApplyInPlace(p, mat, tc.lengths); err != nil {
				t.Fatal(err)
			}
			for s := 0; s < b; s++ {
				n := tc.l
				if tc.lengths != nil {
					n = tc.lengths[s]
				}
				for i := 0; i < n; i++ {
					for j := i; j < n; j++ {
						q := s*tc.l*(tc.l+1)/2 + PackedIndex(tc.l, i, j)
						for o := 0; o < tc.f; o++ {
							got := float64(row.Data[(s*tc.l+i)*tc.f+o]) + float64(col.Data[(s*tc.l+j)*tc.f+o])
							if w := float64(mat.Data[q*tc.f+o]); math.Abs(got-w) > 1e-5*(1+math.Abs(w)) {
								t.Fatalf("halves at (%d,%d,%d) channel %d sum to %v, the map holds %v", s, i, j, o, got, w)
							}
						}
					}
				}
			}
			// The materialised input: [Before | the map | After...].
			m := CartesianMap{Row: row, Col: col, Sum: true, Lengths: tc.lengths}
			parts := []*Tensor{}
			if tc.c0 > 0 {
				m.Before = randPacked(r, b, tc.l, tc.c0)
				parts = append(parts, m.Before)
			}
			parts = append(parts, mat)
			for _, c := range tc.after {
				a := randPacked(r, b, tc.l, c)
				m.After = append(m.After, a)
				parts = append(parts, a)
			}
			joined, err := Concat(p, parts...)
			if err != nil {
				t.Fatal(err)
			}
			cin := joined.Shape[3]
			var convs []*SymPresConv
			var branch []BranchConv
			for i, k := range tc.kernels {
				c, err := NewSymPresConv(fmt.Sprintf("sp%d", i), k, cin, 3, r)
				if err != nil {
					t.Fatal(err)
				}
				randn(c.B.Value, r)
				convs = append(convs, c)
				branch = append(branch, c)
			}
			got, err := ForwardBranchesSymCartesian(p, m, convs...)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ForwardBranches(p, joined, branch...)
			if err != nil {
				t.Fatal(err)
			}
			if got.Layout != Packed || len(got.Data) != len(want.Data) {
				t.Fatalf("output %s %v, want %s %v", got.Layout, got.Shape, want.Layout, want.Shape)
			}
			worst := 0.0
			for q := range want.Data {
				g, w := float64(got.Data[q]), float64(want.Data[q])
				d := math.Abs(g-w) / (1 + math.Abs(w))
				worst = max(worst, d)
				if d > 1e-5 {
					t.Fatalf("stored value %d: %v, materialised %v", q, g, w)
				}
			}
			t.Logf("worst relative difference %.2g", worst)
		})
	}
}
