package predict

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/train"
)

// Config configures a prediction run.
type Config struct {
	ModelPath string
	PDBDir    string // mirror for PDB IDs
	SS        string // secondary-structure predictions (needed by "ss" models)
	MSADir    string // alignments (needed by "msa" models)
	Out       string
	Formats   []string // of "rr", "npy", "tsv", "png"
	Workers   int      // chains in parallel
	Shard     int
	Shards    int
	Def       pdb.Definition // contact definition for metrics on known structures

	OnStart func(total int)
	OnDone  func(Outcome)
}

// Target is one chain to predict.
type Target struct {
	Arg      string // the input it came from
	ID       string
	Seq      string
	Residues []*pdb.Residue // aligned to Seq; nil without a structure
}

// Outcome is the result for one target (or one input that failed to
// resolve: ID empty).
type Outcome struct {
	Arg     string
	ID      string
	L       int
	Files   []string
	Metrics *train.ChainMetrics // nil without a structure
	Err     error
}

// ErrInput marks inputs that could not be resolved.
var ErrInput = errors.New("bad input")

// ParseID splits "1ENH_A", "1ENHA" or "1enh" into an upper-case PDB code
// and a chain ("" for every protein chain).
func ParseID(s string) (code, chain string, err error) {
	s = strings.TrimSpace(s)
	if a, b, ok := strings.Cut(s, "_"); ok {
		code, chain = a, b
	} else if len(s) > 4 {
		code, chain = s[:4], s[4:]
	} else {
		code = s
	}
	if len(code) != 4 || code[0] < '1' || code[0] > '9' {
		return "", "", fmt.Errorf("%w: %q is not a PDB ID (1ENH_A, 1ENHA or 1enh)", ErrInput, s)
	}
	for _, c := range code {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "", "", fmt.Errorf("%w: %q is not a PDB ID", ErrInput, s)
		}
	}
	if ok := strings.Contains(s, "_"); ok && chain == "" {
		return "", "", fmt.Errorf("%w: %q has an empty chain", ErrInput, s)
	}
	return strings.ToUpper(code), chain, nil
}

func isFASTA(path string) bool {
	switch strings.ToLower(filepath.Ext(strings.TrimSuffix(path, ".gz"))) {
	case ".fasta", ".fa", ".faa", ".fas", ".seq":
		return true
	}
	return false
}

// Resolve turns one input (PDB ID, structure file or FASTA file) into
// targets.
func Resolve(arg, pdbDir string) ([]Target, error) {
	if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
		if isFASTA(arg) {
			f, err := fileio.Open(arg)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			seqs, err := features.ReadSequences(f)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrInput, arg, err)
			}
			if len(seqs) == 0 {
				return nil, fmt.Errorf("%w: %s: no sequences", ErrInput, arg)
			}
			var out []Target
			for _, s := range seqs {
				out = append(out, Target{Arg: arg, ID: s.Name, Seq: s.Seq})
			}
			return out, nil
		}
		s, err := pdb.ReadFile(arg)
		if err != nil {
			return nil, err
		}
		name := s.ID
		if name == "" {
			name = strings.Split(filepath.Base(arg), ".")[0]
		}
		return chainsOf(arg, name, s, "")
	}
	code, chain, err := ParseID(arg)
	if err != nil {
		return nil, err
	}
	if pdbDir == "" {
		return nil, fmt.Errorf("%w: %s: give --pdb-dir to resolve PDB IDs", ErrInput, arg)
	}
	s, _, err := pdb.Mirror{Dir: pdbDir}.Read(code)
	if err != nil {
		return nil, err
	}
	return chainsOf(arg, code, s, chain)
}

func chainsOf(arg, code string, s *pdb.Structure, chain string) ([]Target, error) {
	var out []Target
	for _, c := range s.Chains {
		if chain != "" && c.ID != chain || chain == "" && !c.IsProtein() {
			continue
		}
		res, err := c.Align()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", arg, err)
		}
		out = append(out, Target{Arg: arg, ID: code + "_" + c.ID, Seq: c.Sequence(), Residues: res})
	}
	if len(out) == 0 {
		if chain != "" {
			return nil, fmt.Errorf("%w: %s: no chain %q in %s", pdb.ErrNoChain, arg, chain, code)
		}
		return nil, fmt.Errorf("%w: %s: no protein chain", pdb.ErrNoChain, arg)
	}
	return out, nil
}

// checkMode verifies that the inputs given match the model's feature mode.
func checkMode(mode string, cfg Config) error {
	needSS, needMSA := strings.Contains(mode, "ss"), strings.Contains(mode, "msa")
	switch {
	case needSS && cfg.SS == "":
		return fmt.Errorf("the model was trained on features with PSIPRED secondary structure (mode %s): give --ss", mode)
	case !needSS && cfg.SS != "":
		return fmt.Errorf("the model was trained without secondary-structure predictions (mode %s): drop --ss", mode)
	case needMSA && cfg.MSADir == "":
		return fmt.Errorf("the model was trained on MSA features (mode %s): give --msa-dir", mode)
	case !needMSA && cfg.MSADir != "":
		return fmt.Errorf("the model was trained without MSAs (mode %s): drop --msa-dir", mode)
	}
	return nil
}

// Run resolves the inputs and predicts every target, writing outputs to
// cfg.Out. It returns one outcome per input that failed to resolve, then
// one per target in input order; a failed input never stops the others.
func Run(ctx context.Context, cfg Config, args []string) ([]Outcome, error) {
	if cfg.Shards < 1 {
		cfg.Shards = 1
	}
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if len(cfg.Formats) == 0 {
		cfg.Formats = []string{"rr", "npy", "png"}
	}
	for _, f := range cfg.Formats {
		switch f {
		case "rr", "npy", "tsv", "png":
		default:
			return nil, fmt.Errorf("predict: unknown format %q (rr, npy, tsv, png)", f)
		}
	}
	model, err := train.LoadModel(cfg.ModelPath)
	if err != nil {
		return nil, err
	}
	if err := checkMode(model.Arch.Mode, cfg); err != nil {
		return nil, fmt.Errorf("predict: %s: %w", cfg.ModelPath, err)
	}
	var ss *features.SSSource
	if cfg.SS != "" {
		if ss, err = features.OpenSSSource(cfg.SS); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	var mine []string
	for i, a := range args {
		if i%cfg.Shards == cfg.Shard {
			mine = append(mine, a)
		}
	}
	var targets []Target
	var outcomes []Outcome
	for _, a := range mine {
		ts, err := Resolve(a, cfg.PDBDir)
		if err != nil {
			outcomes = append(outcomes, Outcome{Arg: a, Err: err})
			continue
		}
		targets = append(targets, ts...)
	}
	if cfg.OnStart != nil {
		cfg.OnStart(len(targets))
	}
	results := make([]Outcome, len(targets))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < cfg.Workers; w++ {
		// Layers keep per-call state, so each worker has its own copy.
		m := model
		if w > 0 {
			if m, err = train.LoadModel(cfg.ModelPath); err != nil {
				return nil, err
			}
		}
		m.SetWorkers(max(1, runtime.GOMAXPROCS(0)/cfg.Workers)) // forward results do not depend on it
		wg.Add(1)
		go func(m *train.Model) {
			defer wg.Done()
			for i := range jobs {
				results[i] = predictOne(m, cfg, ss, targets[i])
				if cfg.OnDone != nil {
					mu.Lock()
					cfg.OnDone(results[i])
					mu.Unlock()
				}
			}
		}(m)
	}
	for i := range targets {
		if ctx.Err() != nil {
			results[i] = Outcome{Arg: targets[i].Arg, ID: targets[i].ID, Err: ctx.Err()}
			continue
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return append(outcomes, results...), nil
}

func predictOne(m *train.Model, cfg Config, ss *features.SSSource, t Target) Outcome {
	o := Outcome{Arg: t.Arg, ID: t.ID, L: len(t.Seq)}
	fail := func(err error) Outcome { o.Err = err; return o }
	if err := features.ValidSequence(t.Seq); err != nil {
		return fail(fmt.Errorf("%w: %s: %w", ErrInput, t.ID, err))
	}
	var pred features.SS
	if ss != nil {
		p, ok, err := ss.Lookup(t.ID)
		switch {
		case err != nil:
			return fail(err)
		case !ok:
			return fail(fmt.Errorf("%w: %s: no secondary-structure prediction in %s", ErrInput, t.ID, cfg.SS))
		}
		pred = p
	}
	var aln *features.Alignment
	if cfg.MSADir != "" {
		path := features.FindMSA(cfg.MSADir, t.ID)
		if path == "" {
			return fail(fmt.Errorf("%w: %s: no alignment in %s", ErrInput, t.ID, cfg.MSADir))
		}
		var err error
		if aln, err = features.ReadMSA(path); err != nil {
			return fail(err)
		}
	}
	c, err := features.Compute(t.ID, t.Seq, pred, aln)
	if err != nil {
		return fail(err)
	}
	b := train.NewBatch([]*train.Sample{{ID: t.ID, Chain: c}}, m.Packed())
	logits, err := m.Forward(b, false)
	if err != nil {
		return fail(err)
	}
	l := len(t.Seq)
	p := train.Probabilities(logits, b.Lengths)[0]
	for i := 0; i < l; i++ { // the upper triangle is the prediction
		for j := 0; j < i; j++ {
			p[i*l+j] = p[j*l+i]
		}
	}
	var contacts, mask []bool
	if t.Residues != nil {
		contacts, mask = pdb.ContactMap(t.Residues, cfg.Def, pdb.ContactCutoff)
		lab, msk := make([]float32, l*l), make([]float32, l*l)
		for k := range contacts {
			if contacts[k] {
				lab[k] = 1
			}
			if mask[k] {
				msk[k] = 1
			}
		}
		cm := train.Evaluate(t.ID, l, p, lab, msk)
		o.Metrics = &cm
	}
	method := fmt.Sprintf("contactmap %s (%s configuration, %s features)", strings.ToUpper(m.Arch.Kind), m.Arch.Config, m.Arch.Mode)
	base := filepath.Join(cfg.Out, safeName(t.ID))
	for _, f := range cfg.Formats {
		var path string
		var write func(io.Writer) error
		switch f {
		case "rr":
			path, write = base+".rr", func(w io.Writer) error { return WriteRR(w, t.ID, method, t.Seq, p) }
		case "npy":
			path, write = base+".npy", func(w io.Writer) error { return WriteNPY(w, p, l) }
		case "tsv":
			path, write = base+".tsv", func(w io.Writer) error { return WriteTSV(w, p, l) }
		case "png":
			path, write = base+".png", func(w io.Writer) error { return Heatmap(w, t.ID, p, l, contacts, mask) }
		}
		if err := fileio.WriteAtomic(path, write); err != nil {
			return fail(err)
		}
		o.Files = append(o.Files, path)
	}
	return o
}

// safeName keeps IDs usable as file names.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ' ' {
			return '_'
		}
		return r
	}, id)
}
