package predict

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/potts"
)

// The predictors Config.Method selects.
const (
	// MethodAuto (""): the models for sequences, structures and PDB IDs,
	// and for alignment files where the models were trained with
	// alignments (feature mode msa or msa+plm); plmDCA, with a note, for
	// an alignment file and models that read none (no MSA network is
	// shipped yet).
	MethodAuto = ""
	// MethodNetwork: the models (Config.Models) only. An alignment file
	// is refused where they read no alignment.
	MethodNetwork = "network"
	// MethodPLM: plmDCA alone (package potts), no model: an alignment
	// file's query, or a chain whose alignment --msa-dir holds.
	MethodPLM = "plm"
)

// Methods lists the values of Config.Method a user may name.
var Methods = []string{MethodPLM, MethodNetwork}

// ErrNoMSANetwork: MethodNetwork was asked of an alignment.
var ErrNoMSANetwork = errors.New("the model was trained without alignments: it cannot predict from one (the shipped MSA model msa can, and plmDCA)")

// ErrNeedAlignment: MethodPLM was asked of an input without one.
var ErrNeedAlignment = errors.New("plmDCA predicts from an alignment: give an alignment file (PSICOV .aln, A3M, aligned FASTA, Stockholm), or a chain whose alignment (<ID>.a3m, .aln or .fasta) is in the alignment directory")

// PlmContacts is the contact definition plmDCA's maps are scored on: the
// field's (CASP's) C-beta definition.
var PlmContacts = pdb.ContactDef{Atoms: pdb.CBeta, Cutoff: pdb.ContactCutoff}

// alignmentChars reports whether line is a row of a PSICOV alignment:
// letters, '-' and '.', nothing else.
func alignmentChars(line []byte) bool {
	if len(line) == 0 {
		return false
	}
	for _, c := range line {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// IsAlignment tells, from an input file's uncompressed content, whether
// it is an alignment rather than sequences or a structure:
//   - Stockholm ("# STOCKHOLM" first) and A3M ("#A3M#" first) always;
//   - FASTA with at least two records, a gap ('-' or '.') in some
//     sequence line, and rows of one length in the columns an alignment
//     keeps (A3M's lower-case insertions and '.' aside): a sequences file with a stray gap stays a sequences
//     file. With plm (the user asked for plmDCA) every FASTA file, gaps
//     or not;
//   - PSICOV: the first two non-blank lines are both rows of letters,
//     '-' and '.' (structure files start with records holding spaces or
//     '_', sequences files with '>').
func IsAlignment(data []byte, plm bool) bool {
	lines := nonBlankLines(data)
	if len(lines) == 0 {
		return false
	}
	first := lines[0]
	if bytes.HasPrefix(first, []byte("# STOCKHOLM")) || bytes.HasPrefix(first, []byte("#A3M#")) {
		return true
	}
	if LooksLikeFASTA(data) {
		if plm {
			return true
		}
		rows, gap := fastaColumns(lines)
		return gap && oneLength(rows)
	}
	return len(lines) >= 2 && alignmentChars(lines[0]) && alignmentChars(lines[1])
}

// fastaColumns counts, for each record of a FASTA file's non-blank lines,
// its characters other than lower-case letters, '.' and blanks (the
// columns an alignment keeps, A3M's insertions aside), and
// tells whether any sequence line holds a gap ('-' or '.').
func fastaColumns(lines [][]byte) (rows []int, gap bool) {
	for _, l := range lines {
		switch {
		case l[0] == '>':
			rows = append(rows, 0)
		case l[0] == ';' || len(rows) == 0:
		default:
			for _, c := range l {
				if !(c >= 'a' && c <= 'z' || c == '.' || c == ' ' || c == '\t') {
					rows[len(rows)-1]++ // a column (a bad letter too: msa names it)
				}
				if c == '-' || c == '.' {
					gap = true
				}
			}
		}
	}
	return rows, gap
}

// oneLength reports whether there are at least two rows, all of one
// non-zero length.
func oneLength(rows []int) bool {
	if len(rows) < 2 || rows[0] == 0 {
		return false
	}
	for _, n := range rows {
		if n != rows[0] {
			return false
		}
	}
	return true
}

// unalignedHint is the warning for a FASTA file of records all of one
// length without gaps, read as separate sequences (IsAlignment): it may be
// an alignment whose rows need no gaps. "" where that is not the case.
func unalignedHint(data []byte) string {
	rows, gap := fastaColumns(nonBlankLines(data))
	if gap || !oneLength(rows) {
		return ""
	}
	return fmt.Sprintf("all %d records have %d residues and no gaps: read as %d separate sequences, not as an alignment; the alignment model (msa) or plmDCA reads the file as an alignment of its first record", len(rows), rows[0], len(rows))
}

// nonBlankLines is data's lines with blanks trimmed, empty ones left out.
func nonBlankLines(data []byte) [][]byte {
	var lines [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 {
			lines = append(lines, t)
		}
	}
	return lines
}

// resolveAlignment reads an alignment file into one target: its query,
// named by the file's stem (the name up to its first '.').
func resolveAlignment(path string, data []byte) ([]Target, error) {
	a, err := msa.Parse(data, path, msa.Unknown)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	a = a.QueryColumns()
	stem := strings.Split(filepath.Base(path), ".")[0]
	if stem == "" {
		stem = filepath.Base(path)
	}
	return []Target{{Arg: path, ID: stem, Seq: a.Query(), MSA: a}}, nil
}

// readAll reads a whole (decompressed) input.
func readAll(r io.Reader, path string) ([]byte, error) {
	data, err := fileio.ReadText(r, msa.MaxBytes, msa.MaxLine)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, path, err)
	}
	return data, nil
}

// plmOptions are the plmDCA fit's options for a run, for --method plm and
// for the msa network's co-evolution channel alike.
func (cfg Config) plmOptions(threads int) potts.Options {
	return potts.Options{Threads: threads, MaxRows: cfg.PlmMaxRows, MaxIdentity: cfg.PlmMaxIdentity}
}

// PlmEstimate is the memory check's estimate for a plmDCA fit of an
// alignment of n sequences and l columns, under the run's options
// (Config.PlmMaxRows caps the sequences fitted): potts.EstimateMemory
// plus the outputs' buffers (TargetBytes). The Go runtime's margin
// (memcheck's Factor) is not applied: the fit's vectors are allocated
// once and live to the end, so the estimate is its live heap and its
// peak.
func (cfg Config) PlmEstimate(l, n, threads int) int64 {
	return potts.EstimateMemory(l, n, cfg.plmOptions(threads)) + TargetBytes(l)
}

// Calibration of plmDCA scores into contact probabilities: a logistic
// curve in the pair's APC score standardised over the pairs with
// |i-j| >= 6 (z = (s - mean) / sd), p = 1 / (1 + exp(-(PlmSlope*z +
// PlmIntercept))). A monotone map: the ranking, and every top-L
// precision, is the scores'. The constants are a logistic regression of
// C-beta contacts on z over the pairs |i-j| >= 6 of the PSICOV families
// of experiments/plmdca (see its README).
const (
	PlmSlope     = 1.0
	PlmIntercept = -4.0
)

// PlmZScores standardises APC scores (l x l): z = (s - mean) / sd over
// the pairs with |i-j| >= 6 (DefaultRRMinSep), symmetric, 0 on the
// diagonal.
func PlmZScores(s []float64, l int) []float64 {
	var sum, sum2, n float64
	for i := 0; i < l; i++ {
		for j := i + DefaultRRMinSep; j < l; j++ {
			v := s[i*l+j]
			sum += v
			sum2 += v * v
			n++
		}
	}
	mean, sd := 0.0, 1.0
	if n > 1 {
		mean = sum / n
		if v := sum2/n - mean*mean; v > 0 {
			sd = math.Sqrt(v)
		}
	}
	z := make([]float64, l*l)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			v := (s[i*l+j] - mean) / sd
			z[i*l+j], z[j*l+i] = v, v
		}
	}
	return z
}

// PlmProbabilities maps APC scores (l x l) to probabilities (see
// PlmSlope), symmetric, 0 on the diagonal.
func PlmProbabilities(s []float64, l int) []float32 {
	z := PlmZScores(s, l)
	p := make([]float32, l*l)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			v := float32(1 / (1 + math.Exp(-(PlmSlope*z[i*l+j] + PlmIntercept))))
			p[i*l+j], p[j*l+i] = v, v
		}
	}
	return p
}

// alignmentFor returns the alignment plmDCA fits for a target: its own
// (an alignment file), or for a chain the one --msa-dir holds, whose
// query must be the chain's sequence.
func alignmentFor(cfg Config, t *Target) (*msa.Alignment, error) {
	if t.MSA != nil {
		return t.MSA, nil
	}
	if cfg.MSADir == "" {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, t.ID, ErrNeedAlignment)
	}
	path := features.FindMSA(cfg.MSADir, t.ID)
	if path == "" {
		return nil, fmt.Errorf("%w: %s: no alignment in %s", ErrInput, t.ID, cfg.MSADir)
	}
	a, err := msa.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	a = a.QueryColumns()
	if a.Query() != t.Seq {
		return nil, fmt.Errorf("%w: %s: the query of %s (%d residues) is not the chain's sequence (%d residues)", ErrInput, t.ID, path, a.L(), len(t.Seq))
	}
	return a, nil
}

// predictPlm predicts a target from its alignment with plmDCA.
func predictPlm(cfg Config, threads int, t Target, o Outcome) Outcome {
	fail := func(err error) Outcome { o.Err = err; return o }
	a, err := alignmentFor(cfg, &t)
	if err != nil {
		return fail(err)
	}
	l, n := a.L(), a.N()
	o.L = l
	if cfg.Memory != nil {
		need := cfg.PlmEstimate(l, n, threads)
		release, err := cfg.Memory.Acquire("", l, need)
		if err != nil {
			err = fmt.Errorf("%s (plmDCA fit of %d sequences x %d columns, %d parameters, L-BFGS): %w", a.Path, n, l, potts.NumParams(l), err)
		}
		if release == nil {
			return fail(err)
		}
		defer release()
		if err != nil {
			o.Warnings = append(o.Warnings, err.Error()+": predicting it anyway")
		}
	}
	r, err := potts.PredictContext(cfg.context(), a, cfg.plmOptions(threads))
	if err != nil {
		return fail(fmt.Errorf("%s: %w", a.Path, err))
	}
	if r.Warn != nil {
		o.Warnings = append(o.Warnings, r.Warn.String())
	}
	if w := features.NonStandard(t.Seq); w != "" {
		o.Warnings = append(o.Warnings, w)
	}
	p := PlmProbabilities(r.Scores, l)
	var truth *pdb.Contacts
	if t.Residues != nil {
		truth = pdb.NewContacts(t.Residues, PlmContacts)
		cm := metrics.Evaluate(t.ID, p, truth)
		o.Metrics = &cm
	}
	m := r.Model
	rows := fmt.Sprintf("%d sequences", m.N)
	if m.Kept < m.N {
		rows = fmt.Sprintf("%d of %d sequences, filtered for redundancy at %.0f%% identity", m.Kept, m.N, 100*cfg.PlmMaxIdentity)
	}
	method := fmt.Sprintf("contactmap plmDCA (pseudo-likelihood Potts model, %s, Neff %.1f at 80%% identity, %d L-BFGS iterations; APC-corrected Frobenius norms, calibrated to probabilities)", rows, m.Neff, m.Iterations)
	return writeOutputs(cfg, t, o, p, truth, method, PlmContacts.String())
}
