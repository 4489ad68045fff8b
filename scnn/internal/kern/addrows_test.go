package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Every kernel set's addRows equals the row-order loop bit for bit, on
// lengths around the vector widths (8, 16, 32, 64) and the paper's 54,
// with rows packed tight and apart; floats after o are not written.
func TestAddRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	withKernels(t, func(t *testing.T) {
		add := activeSet.Load().addRows
		for _, n := range []int{1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 54, 63, 64, 65, 100, 128, 130, 162} {
			for _, gap := range []int{0, 3, 64} {
				for cnt := 0; cnt <= 6; cnt++ {
					step := n + gap
					z := randSlice(max(cnt-1, 0)*step+n, rng) // exactly what is read
					buf := randSlice(n+16, rng)
					o, tail := buf[:n], append([]float32(nil), buf[n:]...)
					want := append([]float32(nil), o...)
					for r := 0; r < cnt; r++ {
						for f := range want {
							want[f] += z[r*step+f]
						}
					}
					add(o, z, step, cnt)
					for f := range want {
						if math.Float32bits(o[f]) != math.Float32bits(want[f]) {
							t.Fatalf("n %d step %d cnt %d: o[%d] = %v, want %v", n, step, cnt, f, o[f], want[f])
						}
					}
					for f, v := range buf[n:] {
						if v != tail[f] {
							t.Fatalf("n %d step %d cnt %d: wrote past o (index %d)", n, step, cnt, n+f)
						}
					}
				}
			}
		}
	})
}

// The same rows in one step of 0 (the mirrored reads of a packed map):
// cnt 1 with step 0 adds z once.
func TestAddRowsStepZero(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		o := []float32{1, 2, 3}
		activeSet.Load().addRows(o, []float32{10, 20, 30}, 0, 1)
		if fmt.Sprint(o) != "[11 22 33]" {
			t.Errorf("got %v", o)
		}
	})
}

func TestAddRowsShortZPanics(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("a z too short for the rows did not panic")
			}
		}()
		activeSet.Load().addRows(make([]float32, 8), make([]float32, 15), 8, 2)
	})
}
