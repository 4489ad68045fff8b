package ssnet

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/scnn"
)

// hybridBatch is a molecule of two hairpins, a non-canonical pair and a
// pseudoknotted one, and windows of it (one cutting a pair), with
// random symmetric logits in a row-major map.
func hybridBatch(t *testing.T) ([]Window, *scnn.Tensor) {
	t.Helper()
	seq := "GCGCAAAAGCGCUUCAGUGGAAACACUGACUU"
	db := "((((....))))(.(((((.[..))))).)]."
	s, err := rna.ParseDotBracket("hyb", seq, db)
	if err != nil {
		t.Fatal(err)
	}
	mol := &Molecule{Structure: s}
	ws := []Window{{Mol: mol, Len: len(seq)}, {Mol: mol, Start: 2, Len: 20}}
	r := rand.New(rand.NewPCG(3, 4))
	l := len(seq)
	z := scnn.New(len(ws), l, l, 1)
	for s := range ws {
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				v := float32(2 * r.NormFloat64())
				z.Data[(s*l+i)*l+j], z.Data[(s*l+j)*l+i] = v, v
			}
		}
	}
	return ws, z
}

// TestHybridLossGradient checks the structured loss's gradient against
// central differences of the loss on every upper-triangle logit, and
// that a packed map gets half of the row-major gradient (the convention
// of scnn.WeightedBCE).
func TestHybridLossGradient(t *testing.T) {
	ctx := context.Background()
	ws, z := hybridBatch(t)
	l := z.Shape[1]
	loss, g, err := hybridLoss(ctx, z, ws)
	if err != nil {
		t.Fatal(err)
	}
	if !(loss > 0) {
		t.Fatalf("loss %v", loss)
	}
	const h = 1e-2 // float32 logits
	checked, nonzero := 0, 0
	for s := range ws {
		for i := 0; i < ws[s].Size(); i++ {
			for j := i + 1; j < ws[s].Size(); j++ {
				k := (s*l+i)*l + j
				v := z.Data[k]
				z.Data[k] = v + h
				up, _, err := hybridLoss(ctx, z, ws)
				if err != nil {
					t.Fatal(err)
				}
				z.Data[k] = v - h
				down, _, _ := hybridLoss(ctx, z, ws)
				z.Data[k] = v
				fd := (up - down) / (2 * h)
				if math.Abs(fd-float64(g.Data[k])) > 1e-4+1e-3*math.Abs(fd) {
					t.Errorf("window %d (%d, %d): gradient %.6g, central difference %.6g", s, i, j, g.Data[k], fd)
				}
				if g.Data[(s*l+j)*l+i] != 0 {
					t.Fatalf("window %d: a gradient on the lower triangle at (%d, %d)", s, j, i)
				}
				checked++
				if g.Data[k] != 0 {
					nonzero++
				}
			}
		}
	}
	if nonzero < 20 {
		t.Fatalf("%d of %d gradients nonzero", nonzero, checked)
	}
	// the packed map: the same logits, half the gradient
	pz := scnn.NewPacked(len(ws), l, 1)
	for s := range ws {
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				pz.Data[s*l*(l+1)/2+scnn.PackedIndex(l, i, j)] = z.Data[(s*l+i)*l+j]
			}
		}
	}
	ploss, pg, err := hybridLoss(ctx, pz, ws)
	if err != nil {
		t.Fatal(err)
	}
	if ploss != loss {
		t.Errorf("packed loss %v, row-major %v", ploss, loss)
	}
	for s := range ws {
		for i := 0; i < l; i++ {
			for j := i + 1; j < l; j++ {
				if got, want := pg.Data[s*l*(l+1)/2+scnn.PackedIndex(l, i, j)], g.Data[(s*l+i)*l+j]/2; got != want {
					t.Fatalf("window %d (%d, %d): packed gradient %v, want %v", s, i, j, got, want)
				}
			}
		}
	}
}

// TestHybridTarget checks the target: the canonical nested part of the
// structure, the pseudoknotted pair and the non-canonical one dropped.
func TestHybridTarget(t *testing.T) {
	ws, _ := hybridBatch(t)
	y := HybridTarget(ws[0].Mol.Structure)
	want := "((((....))))..(((((....)))))...."
	got, err := rna.DotBracket(y)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("target %s, want %s", got, want)
	}
}

// TestHybridLossRefusesPairCrops checks that a window of two stretches
// is an error, not a fold of a sequence that does not exist.
func TestHybridLossRefusesPairCrops(t *testing.T) {
	ws, z := hybridBatch(t)
	ws[1] = Window{Mol: ws[1].Mol, Start: 0, Len: 10, Start2: 20, Len2: 10}
	if _, _, err := hybridLoss(context.Background(), z, ws); err == nil {
		t.Error("no error")
	}
}

// TestHybridModelProbabilities checks that a model trained as a hybrid
// gives its ensemble's probabilities with the logits as bonuses, and
// that a hybrid protocol with pair crops is refused.
func TestHybridModelProbabilities(t *testing.T) {
	m, err := NewModel(SCNN, FamiliesEnsembleGlobalHybrid, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Record.Hybrid {
		t.Fatal("the record does not say hybrid")
	}
	seq := "GCGCAAAAGCGCUUCAGUGGAAACACUGACUU"
	got, err := m.ProbabilitiesWith(seq, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	m.Record.Hybrid = false
	sig, err := m.ProbabilitiesWith(seq, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := HybridProbabilities(context.Background(), seq, sig, 1, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("at %d: %v, want the hybrid's %v (the sigmoid's %v)", k, got[k], want[k], sig[k])
		}
	}
	p := FamiliesEnsembleGlobalHybrid
	p.PairCrops = true
	if _, err := NewModel(SCNN, p, 1); err == nil {
		t.Error("a hybrid with pair crops: no error")
	}
	// buckets hold only whole molecules when MaxLen is at most 2 Crop
	p = FamiliesEnsembleGlobalHybridWhole
	if _, err := NewModel(SCNN, p, 1); err != nil {
		t.Errorf("%s: %v", p.Name, err)
	}
	p.MaxLen = 2*p.Crop + 1
	if _, err := NewModel(SCNN, p, 1); err == nil {
		t.Error("a hybrid with buckets of crops: no error")
	}
}
