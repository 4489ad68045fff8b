package pairnet

import (
	"errors"
	"strings"
	"testing"
)

// paperRNA is the paper's RNA network of a kind (the widths of
// TestPaperRNANetworksAreInstances).
func paperRNA(sym bool) Spec {
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

// Absurd architecture fields, as a corrupt or hostile model file may hold
// them, are refused by Check before New allocates anything, with the
// field named; before the bounds, a pair width of 2e9 ran the process out
// of memory.
func TestSpecCheckBounds(t *testing.T) {
	base := func() Spec { return rnaLike(true) }
	for _, c := range []struct {
		name   string
		change func(*Spec)
		want   string
	}{
		{"pair width", func(s *Spec) { s.Pair.Width = 2e9 }, "pair width 2000000000 out of bounds (0..4096)"},
		{"negative pair width", func(s *Spec) { s.Pair.Width = -1 }, "pair width -1 out of bounds"},
		{"reinject width", func(s *Spec) { s.Reinject.Width = 1 << 20 }, "reinject width 1048576 out of bounds"},
		{"in_1d", func(s *Spec) { s.In1D = 1e9 }, "in_1d 1000000000 out of bounds"},
		{"in_2d", func(s *Spec) { s.In2D = -2 }, "in_2d -2 out of bounds"},
		{"fixed_2d", func(s *Spec) { s.Fixed2D = 5000 }, "fixed_2d 5000 out of bounds"},
		{"lstm_hidden", func(s *Spec) { s.LSTMHidden = 1e9 }, "lstm_hidden 1000000000 out of bounds"},
		{"lstm_out", func(s *Spec) { s.LSTMOut = 1e9 }, "lstm_out 1000000000 out of bounds"},
		{"block width", func(s *Spec) { s.Blocks[1].Widths[0] = 2e9 }, "block 2: kernel 3 width 2000000000 out of bounds"},
		{"block sum", func(s *Spec) { s.Blocks[0] = Uniform(4000, 3, 5) }, "block 1 width 8000 out of bounds"},
		{"head width", func(s *Spec) { s.Head = []Block{Uniform(1e6, 3)} }, "head block 1: kernel 3 width 1000000 out of bounds"},
		{"kernel", func(s *Spec) { s.Blocks[0].Kernels[0] = 1001 }, "block 1: kernel 1001"},
		{"out kernel", func(s *Spec) { s.OutKernel = 1 << 30 }, "out_kernel 1073741824"},
		{"blocks", func(s *Spec) { s.Blocks = make([]Block, 1e6) }, "1000000 blocks"},
		{"branches", func(s *Spec) { s.Blocks[0] = Uniform(1, make([]int, 100)...) }, "100 kernels out of bounds"},
		{"parameters", func(s *Spec) {
			s.Blocks = []Block{Uniform(4096, 15), Uniform(4096, 15), Uniform(4096, 15)}
		}, "parameters out of bounds"},
	} {
		s := base()
		s.Blocks = append([]Block(nil), s.Blocks...)
		for i := range s.Blocks {
			s.Blocks[i].Kernels = append([]int(nil), s.Blocks[i].Kernels...)
			s.Blocks[i].Widths = append([]int(nil), s.Blocks[i].Widths...)
		}
		re := *s.Reinject
		s.Reinject = &re
		c.change(&s)
		_, err := New(s, 1)
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrSpec saying %q", c.name, err, c.want)
		}
	}
}

// ParamBound bounds the parameters New allocates, and the paper-size
// networks (and much larger ones) are within the bounds.
func TestParamBound(t *testing.T) {
	big := paperRNA(true)
	big.Blocks = []Block{Uniform(256, 15, 13, 9, 5), Uniform(256, 9, 5), Uniform(256, 5)}
	for name, s := range map[string]Spec{"rna-like CNN": rnaLike(false), "rna-like SCNN": rnaLike(true),
		"paper CNN": paperRNA(false), "paper SCNN": paperRNA(true), "wide SCNN": big} {
		n, err := New(s, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		total := 0
		for _, p := range n.Params() {
			total += len(p.Value)
		}
		if b := s.ParamBound(); b < total || b > MaxParams {
			t.Errorf("%s: ParamBound %d, network has %d values (limit %d)", name, b, total, MaxParams)
		}
	}
}
