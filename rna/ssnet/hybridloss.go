package ssnet

import (
	"context"
	"fmt"
	"math"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/loglinear"
	"github.com/contactmap/contactmap/scnn"
)

// HybridTarget returns the part of a structure that Turner 2004's
// nested model can hold, the target of the hybrid's loss: its canonical
// pairs, less those crossing a pair kept before them and those closing a
// hairpin of fewer than 3 bases (loglinear.Representable). A target
// with an interior loop of more than 30 bases is kept as it is, though
// Turner's ensemble gives it probability 0: its loss is then not a
// log-likelihood, and only the clamp of the bonuses bounds it (trials 19
// and 20 trained so; how many windows it touched was not counted).
func HybridTarget(s *rna.Structure) *rna.Structure {
	t, _, _ := loglinear.Representable(s)
	return t
}

// hybridLoss is the structured loss of the hybrid protocol (Protocol
// Hybrid) on a batch of contiguous windows: each window's sequence is
// folded alone by Turner 2004's global ensemble with the bonus z_ij of
// each pair (the logit of the window's upper-triangle entry, clamped to
// |z| <= HybridMaxLogit; fold.Params.PartitionBonus), and its loss is
// ln Z(z) - sum over the target's pairs of z_ij (HybridTarget of the
// window's pairs), the negative log-likelihood of the target up to its
// Turner energy. The gradient with respect to z_ij is P_ij - y_ij (0
// where the clamp holds), on the entries the BCE loss uses (the upper
// triangle of a row-major map; half of it on a packed one, as
// scnn.WeightedBCE); loss and gradient are summed over the batch and
// divided by its number of bases.
func hybridLoss(ctx context.Context, z *scnn.Tensor, ws []Window) (float64, *scnn.Tensor, error) {
	if len(z.Shape) != 4 || z.Shape[0] != len(ws) || z.Shape[1] != z.Shape[2] || z.Shape[3] != 1 {
		return 0, nil, fmt.Errorf("ssnet: hybrid loss: logits %v for %d windows", z.Shape, len(ws))
	}
	l := z.Shape[1]
	at := func(s, i, j int) int { return (s*l+i)*l + j }
	half := 1.0
	if z.Layout == scnn.Packed {
		at = func(s, i, j int) int { return s*l*(l+1)/2 + scnn.PackedIndex(l, i, j) }
		half = 0.5
	}
	grad := scnn.ZerosLike(z)
	losses := make([]float64, len(ws))
	bases := 0
	for _, w := range ws {
		bases += w.Size()
	}
	err := forEachMolecule(len(ws), evalParallel(len(ws)), nil, func(s int) error {
		var err error
		losses[s], err = hybridWindow(ctx, z, grad, ws[s], s, at, half)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	var sum float64
	for _, v := range losses {
		sum += v // in window order, whatever the goroutines
	}
	if bases == 0 {
		return 0, grad, nil
	}
	for k := range grad.Data {
		grad.Data[k] /= float32(bases)
	}
	return sum / float64(bases), grad, nil
}

// hybridWindow is hybridLoss's term of window w, sample s of the batch;
// it writes the window's gradient (not yet divided) into grad.
func hybridWindow(ctx context.Context, z, grad *scnn.Tensor, w Window, s int, at func(s, i, j int) int, half float64) (float64, error) {
	if w.Len2 > 0 {
		return 0, fmt.Errorf("ssnet: hybrid loss: %s: a window of two stretches cannot be folded", w.Mol.Name)
	}
	n := w.Len
	seq := w.Mol.Seq[w.Start : w.Start+n]
	partner := make([]int, n)
	for i := range partner {
		partner[i] = rna.Unpaired
		if j := w.Mol.Partner[w.Start+i]; j != rna.Unpaired && j >= w.Start && j < w.Start+n {
			partner[i] = j - w.Start
		}
	}
	y := HybridTarget(&rna.Structure{Name: w.Mol.Name, Seq: seq, Partner: partner})
	bonus := func(i, j int) float64 {
		return min(max(float64(z.Data[at(s, i, j)]), -HybridMaxLogit), HybridMaxLogit)
	}
	e, err := fold.DefaultParams().PartitionBonus(ctx, seq, bonus, 1)
	if err != nil {
		return 0, fmt.Errorf("ssnet: hybrid loss: %s window %d+%d: %w", w.Mol.Name, w.Start, n, err)
	}
	loss := e.LogZ()
	for i, j := range y.Partner {
		if j > i {
			loss -= bonus(i, j)
		}
	}
	inRange := func(i, j int) bool { return math.Abs(float64(z.Data[at(s, i, j)])) <= HybridMaxLogit }
	for _, q := range e.Pairs(0) {
		if inRange(q.I, q.J) {
			grad.Data[at(s, q.I, q.J)] = float32(half * q.P)
		}
	}
	for i, j := range y.Partner {
		if j > i && inRange(i, j) {
			grad.Data[at(s, i, j)] -= float32(half)
		}
	}
	return loss, nil
}
