package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/consensus"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// readSupports reads rna-consensus run's support.tsv.gz (lines of
// sequence, name and consensus.Support text; gzip members one per line)
// into sequence (upper case, T as U) -> support.
func readSupports(path string) (map[string]*consensus.Support, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	out := map[string]*consensus.Support{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	line := 0
	for sc.Scan() {
		line++
		seq, rest, ok := strings.Cut(sc.Text(), "\t")
		name, text, ok2 := strings.Cut(rest, "\t")
		if !ok || !ok2 {
			return nil, fmt.Errorf("%s line %d: want sequence, name and support, tab-separated", path, line)
		}
		var s consensus.Support
		if err := s.UnmarshalText([]byte(text)); err != nil {
			return nil, fmt.Errorf("%s line %d (%s): %w", path, line, name, err)
		}
		if s.Len() != len(seq) {
			return nil, fmt.Errorf("%s line %d (%s): a support of %d bases for a sequence of %d", path, line, name, s.Len(), len(seq))
		}
		out[seq] = &s
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s line %d: %w", path, line+1, err)
	}
	return out, nil
}

// consensusRows scores trial 17's predictor NAME/cc on the set: each
// molecule's network probabilities P put in the query's place in its
// homologs' consensus (consensus.Support.Consensus over -consensus's
// supports), decoded from (1 - w) P + w Q as trial 16's selected
// candidate decodes (-consensus-w, -consensus-gamma: rna.DecodeMEA's
// gamma, 0 the centroid); a molecule whose template the network sees
// (hasTemplate) is decoded from P alone by the MEA decoder, as the
// blends are (trial 10's amendment), and so is a molecule of more than
// ssnet.ConsensusMaxLen bases, which has no support (rna-consensus run
// -max-len 600; the rule written before the ArchiveII folds' read).
//
// For an ensemble (more than one model) P is the mean of the members'
// probabilities, as the network method averages them.
func consensusRows(name string, ms []*ssnet.Model, set []ssnet.Molecule) ([]string, error) {
	m := ms[0]
	sups, err := readSupports(*consFlag)
	if err != nil {
		return nil, err
	}
	w, gamma := *consWFlag, *consGFlag
	if !(w >= 0 && w <= 1) || !(gamma >= 0) {
		return nil, fmt.Errorf("-consensus-w %g (want 0..1), -consensus-gamma %g (want >= 0)", w, gamma)
	}
	for k := range set {
		if len(set[k].Seq) <= ssnet.ConsensusMaxLen && sups[normalSeq(set[k].Seq)] == nil {
			return nil, fmt.Errorf("-consensus %s: no support for %s", *consFlag, set[k].Name)
		}
	}
	t0 := time.Now()
	label := name + "/cc"
	scores, err := ssnet.Evaluate(set, func(mol *ssnet.Molecule) (*rna.Structure, error) {
		p, err := memberMean(ms, mol)
		if err != nil {
			return nil, err
		}
		if hasTemplate(m, mol) || len(mol.Seq) > ssnet.ConsensusMaxLen {
			return ssnet.MEA.Decode(mol.Name, mol.Seq, p)
		}
		q, err := sups[normalSeq(mol.Seq)].Consensus(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mol.Name, err)
		}
		b := make([]float32, len(p))
		for k := range b {
			b[k] = float32((1-w)*float64(p[k]) + w*float64(q[k]))
		}
		if gamma == 0 {
			return rna.Decode(mol.Name, mol.Seq, b, 0.5)
		}
		return rna.DecodeMEA(mol.Name, mol.Seq, b, rna.DecodeOptions{Gamma: gamma})
	}, nil)
	if err != nil {
		return nil, err
	}
	return scoreRows(label, scores, t0), nil
}

// memberMean returns the mean of the models' probabilities of mol (one
// model's own for one), as the network method averages an ensemble's.
func memberMean(ms []*ssnet.Model, mol *ssnet.Molecule) ([]float32, error) {
	qs := make([][]float32, len(ms))
	for k, m := range ms {
		q, err := m.ProbabilitiesFor(mol, 1)
		if err != nil {
			return nil, err
		}
		qs[k] = q
	}
	return ssnet.MeanProbabilities(qs), nil
}

// scoreRows returns a predictor's rows of a scores-*.tsv file (label,
// molecule, length, F1, MCC, F1 with a one-base slip), after printing
// its mean row of the table and logging the time since t0.
func scoreRows(label string, scores []ssnet.MolScore, t0 time.Time) []string {
	rows := make([]string, 0, len(scores))
	for _, sc := range scores {
		rows = append(rows, fmt.Sprintf("%s\t%s\t%d\t%.6f\t%.6f\t%.6f", label, sc.Name, sc.Len, sc.Exact.F1, sc.Exact.MCC, sc.Shift.F1))
	}
	s := ssnet.Summarize(scores)
	fmt.Printf("| %s | %.3f | %.3f | %.3f |\n", label, s[0].Exact.F1, s[0].Exact.MCC, s[0].Shift.F1)
	logf("%s: %s", label, time.Since(t0).Round(time.Second))
	return rows
}

// normalSeq is a sequence as rna-consensus keys it.
func normalSeq(seq string) string {
	return strings.ReplaceAll(strings.ToUpper(seq), "T", "U")
}
