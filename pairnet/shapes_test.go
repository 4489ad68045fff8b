package pairnet

import (
	"reflect"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// ParamShapes lists exactly the parameters New builds, names, shapes and
// order, for networks with and without each optional part (a model
// file's reader refuses arrays that do not match it).
func TestParamShapesAreNewsParams(t *testing.T) {
	var specs []Spec
	for _, sym := range []bool{false, true} {
		for _, lstm := range []int{0, 3} {
			for _, re := range []*MapSpec{nil, {}, {BN: true, ReLU: true}, {Width: 5, BN: true}} {
				if re != nil && re.Width != 0 && !sym {
					continue
				}
				for _, head := range [][]Block{nil, {Uniform(2, 3)}, {Uniform(2, 3, 3, 1), {Kernels: []int{1, 5}, Widths: []int{1, 3}}}} {
					pair := MapSpec{BN: lstm > 0}
					if sym {
						pair.Width = 6
					}
					specs = append(specs, Spec{Symmetric: sym, In1D: 4, In2D: 2, Fixed2D: 1, LSTMHidden: lstm, LSTMOut: 2 * lstm,
						Pair: pair, Blocks: []Block{Uniform(3, 5, 3), {Kernels: []int{3, 3, 1}, Widths: []int{1, 2, 3}}},
						Reinject: re, Head: head, OutKernel: 3})
				}
			}
		}
	}
	for _, s := range specs {
		if err := s.Check(); err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		n, err := New(s, 1)
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		want := scnn.ShapesOf(n.Params())
		if got := s.ParamShapes(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v:\nParamShapes %v\nNew's       %v", s, got, want)
		}
	}
}
