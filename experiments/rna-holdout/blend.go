package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// parseBlend reads -blend's weights.
func parseBlend(spec string) ([]float64, error) {
	return parseValues("-blend", spec, "a weight in (0, 1]", func(w float64) bool { return w > 0 && w <= 1 },
		func(w float64) string { return fmt.Sprintf("b%d", int(math.Round(100*w))) })
}

// parseValues reads a flag's comma-separated numbers: each one ok
// accepts (want says which), the predictor labels label gives them
// distinct.
func parseValues(flag, spec, want string, ok func(float64) bool, label func(float64) string) ([]float64, error) {
	var vs []float64
	seen := map[string]float64{}
	for _, f := range strings.Split(spec, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !ok(v) {
			return nil, fmt.Errorf("%s %q: %q, want %s", flag, spec, f, want)
		}
		l := label(v)
		if u, dup := seen[l]; dup {
			return nil, fmt.Errorf("%s %q: %g and %g have the same name %s", flag, spec, u, v, l)
		}
		seen[l] = v
		vs = append(vs, v)
	}
	return vs, nil
}

// perMolecule returns f computed once per molecule (by its address),
// safe for concurrent use: the predictors of one network scored under
// several settings share its probabilities.
func perMolecule[T any](f func(*ssnet.Molecule) (T, error)) func(*ssnet.Molecule) (T, error) {
	var mu sync.Mutex
	memo := map[*ssnet.Molecule]T{}
	return func(mol *ssnet.Molecule) (T, error) {
		mu.Lock()
		v, ok := memo[mol]
		mu.Unlock()
		if ok {
			return v, nil
		}
		v, err := f(mol)
		if err != nil {
			return v, err
		}
		mu.Lock()
		memo[mol] = v
		mu.Unlock()
		return v, nil
	}
}

// blendProbs returns (1 - w) p + w q for the symmetric n x n map p and
// the pairs q (I < J), as a new map.
func blendProbs(p []float32, n int, q []ssnet.PairProb, w float64) []float32 {
	if len(p) != n*n {
		panic(fmt.Sprintf("blendProbs: %d values for %d bases", len(p), n))
	}
	out := make([]float32, len(p))
	a := float32(1 - w)
	for k, v := range p {
		out[k] = a * v
	}
	for _, pp := range q {
		v := float32(w) * pp.P
		out[int(pp.I)*n+int(pp.J)] += v
		out[int(pp.J)*n+int(pp.I)] += v
	}
	return out
}

// hasTemplate reports whether the network sees a template of mol: one
// attached, of identity at least the record's MinIdentity, and the
// record not dropping templates.
func hasTemplate(m *ssnet.Model, mol *ssnet.Molecule) bool {
	r := m.Record
	return r.UsesTemplates() && !r.NoTemplate && mol.Template != nil && mol.Template.Ref != nil && mol.Template.Identity >= r.MinIdentity
}

// blendRows scores the blends of -blend on the set: each molecule's
// network probabilities computed once, then for each weight the MEA
// decoder on the blend with the molecule's McCaskill pair probabilities
// under -blend-global's rule (from -ensemble-cache, computed where it
// lacks them, not written back). A molecule whose template the network
// sees (hasTemplate) is decoded from the network's probabilities alone:
// the blend is for the molecules of a family the references lack
// (trials.md, trial 10's amendment).
func blendRows(ctx context.Context, name string, m *ssnet.Model, set []ssnet.Molecule) ([]string, error) {
	ws, err := parseBlend(*blendFlag)
	if err != nil {
		return nil, err
	}
	cache, err := ssnet.ReadEnsembleCache(*ensCacheFlg)
	if err != nil {
		return nil, err
	}
	rule := ssnet.EnsembleFold{Global: *blendGlob}
	type probs struct {
		p []float32
		q []ssnet.PairProb
	}
	get := perMolecule(func(mol *ssnet.Molecule) (*probs, error) {
		p, err := m.ProbabilitiesFor(mol, 1)
		if err != nil {
			return nil, err
		}
		q, err := cache.FoldPairs(ctx, rule, mol.Seq, 1)
		if err != nil {
			return nil, err
		}
		return &probs{p, q}, nil
	})
	var rows []string
	for _, w := range ws {
		t0 := time.Now()
		label := fmt.Sprintf("%s/b%d", name, int(math.Round(100*w)))
		scores, err := ssnet.Evaluate(set, func(mol *ssnet.Molecule) (*rna.Structure, error) {
			pr, err := get(mol)
			if err != nil {
				return nil, err
			}
			if hasTemplate(m, mol) {
				return ssnet.MEA.Decode(mol.Name, mol.Seq, pr.p) // the template is trusted
			}
			return ssnet.MEA.Decode(mol.Name, mol.Seq, blendProbs(pr.p, len(mol.Seq), pr.q, w))
		}, nil)
		if err != nil {
			return nil, err
		}
		rows = append(rows, scoreRows(label, scores, t0)...)
	}
	return rows, nil
}
