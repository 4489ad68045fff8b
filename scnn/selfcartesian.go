package scnn

import (
	"fmt"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// SelfCartesian is the self-Cartesian product of Maduranga et al.: a batch
// of sequences x (B, L, n) becomes the dense map y (B, L, L, 2n) with
//
//	y[b,i,j,:] = [x[b,i,:], x[b,j,:]].
//
// y is not symmetric (y[j,i] swaps the two halves of y[i,j]); an sgConv
// turns it into a symmetric map. Its backward step is
// dL/dx[b,i,k] = sum_j dy[b,i,j,k] + sum_j dy[b,j,i,n+k].
func SelfCartesian(p *Pass, x *Tensor) (*Tensor, error) {
	if x.Layout != RowMajor || len(x.Shape) != 3 {
		return nil, fmt.Errorf("scnn: self-Cartesian: input %s %v, want row-major (B, L, n)", x.Layout, x.Shape)
	}
	b, l, n := x.Shape[0], x.Shape[1], x.Shape[2]
	y, err := p.newTensor(RowMajor, []int{b, l, l, 2 * n})
	if err != nil {
		return nil, err
	}
	for s := 0; s < b; s++ {
		xs := x.Data[s*l*n : (s+1)*l*n]
		for i := 0; i < l; i++ {
			// y[s, i, j] = [x_i, x_j] for every j: x_i repeated, then
			// the x_j one after another.
			o := (s*l + i) * l * 2 * n
			kern.CopyRuns(y.Data[o:], xs[i*n:], n, l, 2*n, 0)
			kern.CopyRuns(y.Data[o+n:], xs, n, l, 2*n, n)
		}
	}
	p.record(y, func() error {
		if dy := p.gradOf(y); dy != nil && p.wants(x) {
			p.addGrad(x, selfCartesianGrad(dy))
		}
		return nil
	})
	return y, nil
}

func selfCartesianGrad(dy *Tensor) *Tensor {
	b, l, n := dy.Shape[0], dy.Shape[1], dy.Shape[3]/2
	dx := New(b, l, n)
	for s := 0; s < b; s++ {
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				g := dy.Data[((s*l+i)*l+j)*2*n:]
				di := dx.Data[(s*l+i)*n : (s*l+i+1)*n]
				dj := dx.Data[(s*l+j)*n : (s*l+j+1)*n]
				for k := 0; k < n; k++ {
					di[k] += g[k]
					dj[k] += g[n+k]
				}
			}
		}
	}
	return dx
}
