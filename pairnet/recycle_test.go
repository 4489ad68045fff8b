package pairnet

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// Training steps on recycled storage give the gradients of steps on new,
// zeroed storage, bit for bit, though the recycler poisons with NaN every
// buffer it hands out unzeroed (the layers that write all of their output
// or input gradient take those): both network shapes, both kinds, a
// padded batch, two steps so that the second runs on the first's
// buffers.
func TestRecycledStorageChangesNothing(t *testing.T) {
	for _, shape := range []struct {
		name string
		spec func(bool) Spec
	}{{"rna", rnaLike}, {"protein", proteinLike}} {
		for _, sym := range []bool{false, true} {
			s := shape.spec(sym)
			rng := rand.New(rand.NewPCG(8, 9))
			in, labels, mask := oneHotBatch(rng, []int{41, 30, 36})
			if s.In2D > 0 {
				in.X2, in.Fixed = randomPairMap(rng, sym, 3, 41, s.In2D), randomPairMap(rng, sym, 3, 41, s.Fixed2D)
			}
			net, err := New(s, 5)
			if err != nil {
				t.Fatal(err)
			}
			loss := scnn.WeightedBCE{PosWeight: 5}
			step := func(p *scnn.Pass) [][]float32 {
				for _, q := range net.Params() {
					clear(q.Grad)
				}
				y, err := net.Forward(p, in)
				if err != nil {
					t.Fatal(err)
				}
				_, g, err := loss.Forward(y, labels, mask)
				if err != nil {
					t.Fatal(err)
				}
				if err := p.Backward(y, g); err != nil {
					t.Fatal(err)
				}
				var grads [][]float32
				for _, q := range net.Params() {
					grads = append(grads, append([]float32(nil), q.Grad...))
				}
				p.Free()
				return grads
			}
			want := step(scnn.Training(2))
			r := &scnn.Recycler{Poison: true}
			for k := 0; k < 2; k++ {
				got := step(scnn.TrainingWith(2, r))
				if k == 0 && r.Held() == 0 {
					t.Fatalf("%s symmetric=%v: nothing recycled: the test checks nothing", shape.name, sym)
				}
				for i := range want {
					for j := range want[i] {
						if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
							t.Fatalf("%s symmetric=%v step %d: gradient of %s[%d] %v on recycled storage, %v on new",
								shape.name, sym, k+1, net.Params()[i].Name, j, got[i][j], want[i][j])
						}
					}
				}
			}
		}
	}
}
