package ssnet

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/homology"
	"github.com/contactmap/contactmap/scnn"
)

// TemplateChannels is the width of the 2D input of a network with
// template channels. For bases i and j of the query (i != j):
//
//	0: 1 where the template's pairing carries the pair (i, j)
//	1: the template's identity where both i and j face template bases
//	2: 1 where both i and j face identical template bases
//
// Every channel is symmetric in i and j, as an SCNN's 2D input must be.
// A query without a template (or one below the protocol's minimum
// identity) has all three channels zero: the network then predicts
// from sequence alone.
const TemplateChannels = 3

// TemplateRefs builds the homology index of a reference set (the
// training molecules).
func TemplateRefs(refs []Molecule) *homology.Index {
	ss := make([]*rna.Structure, len(refs))
	for i := range refs {
		ss[i] = refs[i].Structure
	}
	return homology.NewIndex(ss)
}

// AttachTemplates searches each molecule's template in ix and attaches
// it (Molecule.Template); a template under minIdentity is attached as
// none (no reference). self, when true, means set is ix's own reference
// list in the same order: molecule k's template then comes from the
// other references only, as a training item's must. The searches run on
// GOMAXPROCS goroutines; each molecule's template is its own, so the
// result does not depend on their number. When ctx is cancelled the
// searches stop between molecules and it returns ctx's error, some
// molecules left without a template.
func AttachTemplates(ctx context.Context, set []Molecule, ix *homology.Index, self bool, minIdentity float64) error {
	if self && len(set) != ix.Len() {
		return fmt.Errorf("ssnet: templates: %d molecules against their own index of %d", len(set), ix.Len())
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := min(runtime.GOMAXPROCS(0), len(set)); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(set) || ctx.Err() != nil {
					return
				}
				var exclude func(int) bool
				if self {
					exclude = func(r int) bool { return r == k }
				}
				t := FindTemplate(ix, set[k].Seq, exclude, minIdentity)
				set[k].Template = &t
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// FindTemplate is the template of a sequence in ix, or none (no
// reference) when the best one's identity is under minIdentity.
func FindTemplate(ix *homology.Index, seq string, exclude func(int) bool, minIdentity float64) homology.Template {
	t := ix.Search(seq, exclude)
	if t.Ref == nil || t.Identity < minIdentity {
		return homology.Template{Identity: t.Identity}
	}
	return t
}

// templatePixels writes the template channels of the bases idx[0..n) of
// a molecule (window position k is molecule base idx[k]) into dst, a
// row-major n' x n' x c map (n' = stride >= n) whose template channels
// start at channel 0.
func templatePixels(dst []float32, stride, c int, seq string, t *homology.Template, idx []int) {
	pos := make(map[int]int, len(idx)) // molecule base -> window position
	for k, i := range idx {
		pos[i] = k
	}
	id := float32(t.Identity)
	for a, i := range idx {
		ri := t.Map[i]
		if ri < 0 {
			continue
		}
		sameI := t.Ref.Seq[ri] == seq[i]
		for b, j := range idx {
			rj := t.Map[j]
			if b == a || rj < 0 {
				continue
			}
			px := dst[(a*stride+b)*c:]
			px[1] = id
			if sameI && t.Ref.Seq[rj] == seq[j] {
				px[2] = 1
			}
		}
	}
	for _, pr := range t.Pairs {
		a, okA := pos[pr[0]]
		b, okB := pos[pr[1]]
		if okA && okB {
			dst[(a*stride+b)*c] = 1
			dst[(b*stride+a)*c] = 1
		}
	}
}

// window2D is the 2D input of a batch of windows (padded to l), in
// spec's layout: the template channels (the window molecule's attached
// Template, zero for a window with NoTemplate or a molecule without a
// reference) and the energy channels (its attached MFE), as spec's 2D
// width says (Inputs2D).
//
// The further ensemble channels (Inputs2D.Temps), one for each rule of
// extra, are the molecule's channels attached under them
// (Molecule.EnsembleUnder).
func window2D(ws []Window, l int, spec pairnet.Spec, extra []EnsembleFold) (*scnn.Tensor, error) {
	in, ok := inputs2DWith(spec.In2D, len(extra))
	if !ok || spec.In2D == 0 {
		return nil, fmt.Errorf("ssnet: a network with %d 2D input channels and %d further ensemble channels (want %d for templates, %d for energies, %d for both, or with the ensemble channel %d, %d or %d, and the further ones)",
			spec.In2D, len(extra), TemplateChannels, EnergyChannels, TemplateChannels+EnergyChannels,
			EnsembleChannels, TemplateChannels+EnsembleChannels, TemplateChannels+EnergyChannels+EnsembleChannels)
	}
	c := in.Width()
	x := scnn.New(len(ws), l, l, c)
	for s, w := range ws {
		mol := w.Mol
		if in.Template && mol.Template == nil {
			return nil, fmt.Errorf("ssnet: %s: no template attached", mol.Name)
		}
		if in.Energy {
			if err := checkMFE(mol); err != nil {
				return nil, err
			}
		}
		if in.Ensemble {
			if err := checkEnsemble(mol); err != nil {
				return nil, err
			}
		}
		var at [][]PairProb
		for _, f := range extra {
			ps := mol.EnsembleUnder(f)
			if ps == nil {
				return nil, fmt.Errorf("ssnet: %s: no ensemble channel at %g C attached under the rule (molecules of at most %d nt global)", mol.Name, f.TemperatureC(), f.GlobalLen())
			}
			if err := checkPairs(mol, ps); err != nil {
				return nil, err
			}
			at = append(at, ps)
		}
		idx := make([]int, w.Size())
		for k := range idx {
			idx[k] = w.Index(k)
		}
		dst := x.Data[s*l*l*c:]
		if in.Template && mol.Template.Ref != nil && !w.NoTemplate {
			templatePixels(dst, l, c, mol.Seq, mol.Template, idx)
		}
		if in.Energy {
			off := 0
			if in.Template {
				off = TemplateChannels
			}
			energyPixels(dst, l, c, off, mol.Seq, mol.MFE, idx)
		}
		if in.Ensemble {
			off := in.ensembleOffset()
			ensemblePixels(dst, l, c, off, len(mol.Seq), mol.Ensemble, idx)
			for k, ps := range at {
				ensemblePixels(dst, l, c, off+(1+k)*EnsembleChannels, len(mol.Seq), ps, idx)
			}
		}
	}
	if spec.Symmetric {
		return scnn.Pack(x)
	}
	return x, nil
}
