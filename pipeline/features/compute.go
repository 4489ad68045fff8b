package features

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/potts"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/seqalign"
)

// ValidSequence checks a one-letter protein sequence: upper-case letters
// only (non-standard codes are allowed; see residueMix and NonStandard for
// how they are read).
func ValidSequence(seq string) error {
	if seq == "" {
		return fmt.Errorf("empty sequence")
	}
	for i := 0; i < len(seq); i++ {
		if c := seq[i]; c < 'A' || c > 'Z' {
			return fmt.Errorf("invalid residue %q at position %d", c, i+1)
		}
	}
	return nil
}

// Options choose how Compute's MSA channels are made.
type Options struct {
	// Plm: the co-evolution channel (2D channel 0) holds plmDCA's
	// APC-corrected coupling norms (package potts, with Potts; the
	// package defaults where zero), z-scored as the mean-field one is;
	// the chain's mode is then msa+plm. Ignored without an MSA.
	//
	// The stopping epsilon: the shipped MSA network was trained on
	// features fitted to 1e-4 (TrainedPlmEpsilon; make
	// features-families passes it) and predicts from fits to the
	// package default, 0.01, which it scored as well on its validation
	// families (experiments/msa-net, "Trial: the plmDCA channel at
	// epsilon 0.01") at about a third of the fit's time.
	Plm   bool
	Potts potts.Options
	// LowDepth, when set, is called with the plmDCA fit's warning when
	// the alignment has few effective sequences (Neff/L < 1).
	LowDepth func(*msa.Warning)
}

// TrainedPlmEpsilon is the plmDCA stopping epsilon of the shipped MSA
// network's training features (features-families).
const TrainedPlmEpsilon = 1e-4

// Compute builds the features of a chain from its sequence, an optional
// secondary-structure prediction (nil: EstimateSS) and an optional MSA
// (nil: sequence-only profile, no co-evolution). It never sees
// coordinates.
func Compute(id, seq string, ss SS, aln *msa.Alignment) (*Chain, error) {
	return ComputeWith(context.Background(), id, seq, ss, aln, Options{})
}

// ComputeWith is Compute with options.
//
// ctx stops the plmDCA fit (potts.FitContext) of a chain with Plm.
func ComputeWith(ctx context.Context, id, seq string, ss SS, aln *msa.Alignment, opt Options) (*Chain, error) {
	seq = strings.ToUpper(seq)
	if err := ValidSequence(seq); err != nil {
		return nil, fmt.Errorf("features: %s: %w", id, err)
	}
	l := len(seq)
	c := &Chain{ID: id, Seq: seq, HasSS: ss != nil, HasMSA: aln != nil, HasPlm: aln != nil && opt.Plm}
	if ss == nil {
		ss = EstimateSS(seq)
	}
	if len(ss) != l {
		return nil, fmt.Errorf("features: %s: secondary structure has %d residues, the sequence %d", id, len(ss), l)
	}
	c.OneD = make([]float32, l*N1D)
	for i := 0; i < l; i++ {
		row := c.OneD[i*N1D : (i+1)*N1D]
		prof := blosumProfile[20]
		if mix := residueMix[seq[i]]; mix != nil {
			prof = [20]float64{}
			hydro := 0.0
			for _, a := range mix {
				for k := range prof {
					prof[k] += blosumProfile[a][k] / float64(len(mix))
				}
				hydro += kyteDoolittle[a] / float64(len(mix))
			}
			row[23] = float32(hydro / 4.5)
		}
		for k := 0; k < 20; k++ {
			row[k] = float32(prof[k])
		}
		copy(row[20:23], ss[i][:])
		if l > 1 {
			row[24] = float32(i) / float32(l-1)
		}
	}
	p := l * (l + 1) / 2
	c.TwoD = make([]float32, p*N2D)
	k := 0
	for i := 0; i < l; i++ {
		for j := i; j < l; j++ {
			c.TwoD[k*N2D+2] = float32(-pairEnergy(seq[i], seq[j]) / 4)
			k++
		}
	}
	if aln != nil {
		if err := addMSA(ctx, c, aln, opt); err != nil {
			return nil, fmt.Errorf("features: %s: %w", id, err)
		}
	}
	return c, nil
}

// pairEnergy is the mean contact energy over the residue types codes a
// and b stand for (0 when either is unknown).
func pairEnergy(a, b byte) float64 {
	ma, mb := residueMix[a], residueMix[b]
	e := 0.0
	for _, x := range ma {
		for _, y := range mb {
			e += contactEnergy[x][y]
		}
	}
	if e == 0 {
		return 0
	}
	return e / float64(len(ma)*len(mb))
}

// addMSA maps the alignment's query onto the chain and fills the profile
// and co-evolution channels where they overlap.
// QueryPairs aligns the alignment's query to the chain sequence seq and
// returns the aligned positions, {chain position, query column} in order:
// a fitted alignment (the query inside the chain) when the query is not
// longer than the chain, else a global one (BLOSUM62). The query matches
// when at least 70% of the aligned pairs are identical and the pairs cover
// at least half of the shorter sequence; otherwise the error wraps ErrMSA.
// This is the map every MSA channel of Compute goes through.
func QueryPairs(seq string, aln *msa.Alignment) ([][2]int, error) {
	query := aln.Query()
	var pairs [][2]int
	var err error
	if len(query) <= len(seq) {
		pairs, err = seqalign.Fitted(seq, query)
	} else {
		pairs, err = seqalign.Global(seq, query)
	}
	if err != nil {
		return nil, err
	}
	same := 0
	for _, pr := range pairs {
		if seq[pr[0]] == query[pr[1]] {
			same++
		}
	}
	if len(pairs) == 0 || 10*same < 7*len(pairs) || 2*len(pairs) < min(len(query), len(seq)) {
		return nil, fmt.Errorf("%w: MSA query does not match the chain (%d aligned, %d identical)", ErrMSA, len(pairs), same)
	}
	return pairs, nil
}

func addMSA(ctx context.Context, c *Chain, aln *msa.Alignment, opt Options) error {
	pairs, err := QueryPairs(c.Seq, aln)
	if err != nil {
		return err
	}
	co, err := computeCoevolution(aln, opt.Potts.Threads, !opt.Plm)
	if err != nil {
		return err
	}
	lq := co.L
	coevo := co.DCA
	if opt.Plm {
		r, err := potts.PredictContext(ctx, aln, opt.Potts)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("plmDCA: %w", err) // stopped, not a bad alignment
			}
			return fmt.Errorf("%w: plmDCA: %w", ErrMSA, err)
		}
		coevo = r.Scores
		if r.Warn != nil && opt.LowDepth != nil {
			opt.LowDepth(r.Warn)
		}
	}
	for _, pr := range pairs {
		row := c.OneD[pr[0]*N1D:]
		for a := 0; a < 20; a++ {
			row[a] = float32(co.Profile[pr[1]*20+a])
		}
	}
	for ch, score := range [][]float64{coevo, co.MI} {
		mean, sd := offDiagonalStats(score, lq)
		for _, pi := range pairs {
			for _, pj := range pairs {
				i, j := pi[0], pj[0]
				if i >= j {
					continue
				}
				v := 0.0
				if sd > 0 {
					v = (score[pi[1]*lq+pj[1]] - mean) / sd
				}
				c.TwoD[scnn.PackedIndex(c.L(), i, j)*N2D+ch] = float32(v)
			}
		}
	}
	return nil
}

func offDiagonalStats(s []float64, l int) (mean, sd float64) {
	n := 0.0
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			mean += s[i*l+j]
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	mean /= n
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			d := s[i*l+j] - mean
			sd += d * d
		}
	}
	return mean, math.Sqrt(sd / n)
}

// AddLabels sets the contact labels of c from the chain's residues
// aligned to its SEQRES (pdb.Chain.Align).
func AddLabels(c *Chain, res []*pdb.Residue, def pdb.ContactDef) error {
	if len(res) != c.L() {
		return fmt.Errorf("features: %s: %d aligned residues for %d positions", c.ID, len(res), c.L())
	}
	c.Labels = pdb.NewContacts(res, def)
	return nil
}
