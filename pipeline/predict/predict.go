package predict

import (
	"bufio"
	"bytes"
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
	"github.com/contactmap/contactmap/internal/heatmap"
	"github.com/contactmap/contactmap/internal/outset"
	"github.com/contactmap/contactmap/internal/runsummary"
	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/pairnet/memcheck"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/scnn"
)

// Config configures a prediction run.
type Config struct {
	// Models are the models to predict with, each resolved by Load.
	// Several models (given, or the members of one spec, as a shipped
	// ensemble's) make a seed ensemble: the mean of all their contact
	// probabilities; they must take the same features and predict the
	// same kind of contact.
	Models []string
	// Load resolves one of Models into models and a description of
	// where they came from; nil reads a model file (model.LoadModel).
	// The command passes package models' Load, which also knows the
	// shipped models by name, so that this package does not link their
	// weights.
	Load    func(spec string) ([]*model.Model, string, error)
	PDBDir  string // mirror for PDB IDs
	SS      string // secondary-structure predictions (needed by "ss" models)
	MSADir  string // alignments (needed by "msa" models)
	Out     string
	Formats []string // of "rr", "npy", "tsv", "png"
	// RRMinSep is the smallest sequence separation |i-j| written to RR
	// files (0: DefaultRRMinSep; 1 writes every pair).
	RRMinSep int
	// RRMax is how many of those pairs RR files keep, the most probable
	// (zero value: DefaultRRMax, 5L; RRMax{All: true}: every pair). The
	// other outputs keep the full map.
	RRMax   RRMax
	Workers int // chains in parallel
	Shard   int
	Shards  int
	// Method selects the predictor: MethodAuto (""), MethodNetwork or
	// MethodPLM (see alignment.go). Under MethodPLM no model is loaded.
	Method string
	// PlmMaxRows caps the distinct sequences of a plmDCA fit (the plm
	// method's and the msa network's co-evolution channel's): past it the
	// fit uses the query and draws of the others in proportion to their
	// weights, at the same N_eff (potts.Options.MaxRows). 0: every
	// sequence.
	PlmMaxRows int
	// PlmMaxIdentity, where in (0, 1), fits plmDCA (the same two) on the
	// rows a greedy redundancy filter keeps at this identity, the
	// weights recomputed on them (potts.Options.MaxIdentity; hhfilter -id
	// 90 before GREMLIN is 0.9). 0: every row.
	PlmMaxIdentity float64
	// AlignmentModels, when Models were trained without alignments,
	// predict the inputs that are alignment files (the CLI gives the
	// shipped MSA model when no --model is named); they must have been
	// trained on alignments. Without them such inputs go to plmDCA
	// (MethodAuto) or fail (MethodNetwork).
	AlignmentModels []string
	// Search, when set, builds (or finds) an alignment for every target
	// that is not an alignment file, before the predictions (search.go).
	Search *Search

	// Check, when set, is called before each target is predicted, with
	// its output name assigned; it may add warnings to the target. An
	// error skips the target: its Outcome carries the error, and the run
	// goes on with the others.
	Check func(*Target) error
	// Memory, when set, checks before each target that its prediction
	// fits in the memory available (Estimate; memcheck.Gate, which also
	// keeps the targets predicted in parallel within it together). A
	// target that does not fit is skipped with a *memcheck.TooLargeError,
	// or under the gate's Force predicted with the error as a warning.
	Memory *memcheck.Gate

	OnStart func(total int)
	OnDone  func(Outcome)
	// OnNetwork, when set, is called as the network starts on a target,
	// with the floating-point operations its passes will execute
	// (pairnet.Spec.InferenceFLOPs of the chain, summed over the
	// ensemble's members); the function it returns, when not nil, is
	// called after each layer of each member with the share of that work
	// done (0 as the network starts, then increasing, 1 after the last
	// layer of the last member), and once more with end set when the
	// network is done or stopped (an error, an interrupt). It runs on the
	// target's worker and does not change the prediction. The network
	// stops between two layers once Run's context is done.
	OnNetwork func(t *Target, flops float64) func(done float64, end bool)

	// ctx is Run's: writing the outputs stops when it is done, leaving
	// the chain's old outputs (writeOutputs).
	ctx context.Context
}

// context is Run's context (ctx), or a background one for a Config
// used outside Run.
func (cfg Config) context() context.Context {
	if cfg.ctx == nil {
		return context.Background()
	}
	return cfg.ctx
}

// DefaultPlmMaxIdentity is the CLI's Config.PlmMaxIdentity: plmDCA
// fitted on the rows at most 90% identical to a row kept before them, as
// GREMLIN's users run hhfilter -id 90. Selected on the 21 validation
// families of experiments/msa-search ("plmDCA redundancy-filter
// trial"): the msa network's long-range top-L/5 from searched
// alignments 0.759 against 0.762 with every row (-0.002 [-0.013,
// +0.009]), and no query over 60 s (the deepest, 16,879 rows, 56.4 s from
// search to contacts, against 25.0 s of search and 44.9 s of predict
// with every row).
const DefaultPlmMaxIdentity = 0.9

// DefaultPlmMaxRows is the CLI's Config.PlmMaxRows: at most 4,000
// distinct sequences of those DefaultPlmMaxIdentity keeps, the query
// and weighted draws of the others. Selected after the filter on the
// same 21 validation families ("Filter then cap"): top-L/5 0.762
// against the filter's 0.759 (+0.002 [-0.006, +0.012]), the largest
// query 37.7 s against 56.4 s; it costs top-L/2 0.011 [0.001, 0.022].
// Read once afterwards on the 28 test families, the two defaults
// together take every query under 60 s (54.2 s at most) and cost 0.027
// [0.013, 0.042] long-range top-L/5 against every row, on the deep
// families (experiments/msa-search, "The shipped defaults on the test
// families").
const DefaultPlmMaxRows = 4000

// DefaultRRMinSep: RR files list pairs with |i-j| >= 6 by default, the
// smallest separation the field scores (CASP's short range).
const DefaultRRMinSep = 6

// Target is one chain to predict.
type Target struct {
	Arg      string // the input it came from
	ID       string
	Name     string // base name of its output files: ID made safe and unique in the run
	Seq      string
	Residues []*pdb.Residue // aligned to Seq; nil without a structure
	// MSA is the alignment an alignment file was read into (its query
	// is Seq, its columns the query's residues); nil for other inputs.
	MSA      *msa.Alignment
	Warnings []string
	// Naming says why the outputs' name differs from ID (assignNames:
	// not file-safe, or taken); "" where it does not.
	Naming string
	// Err is set for a record of a sequences file that holds no usable
	// sequence (features.ErrRecord): it fails alone, the file's other
	// records are predicted.
	Err error
}

// Outcome is the result for one target (or one input that failed to
// resolve: ID empty).
type Outcome struct {
	Arg      string
	ID       string
	L        int
	Files    []string
	Metrics  *metrics.ChainMetrics // nil without a structure
	Warnings []string              // things the user should know; the outputs were written
	Naming   string                // why the outputs' name differs from ID (Target.Naming)
	Notes    []string              // what was done that the user did not ask for (the method chosen)
	// Alignment is where the search stage (Config.Search) found or built
	// the chain's alignment; nil without one.
	Alignment *Source
	Err       error
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

// bareSequence reports whether head is one line of letters (a sequence
// without a FASTA header; two or more such lines are a PSICOV alignment).
func bareSequence(head []byte) bool {
	t := bytes.TrimSpace(head)
	if len(t) == 0 || bytes.ContainsAny(t, "\r\n") {
		return false
	}
	for _, c := range t {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// LooksLikeFASTA reports whether content starting with head is FASTA:
// its first line that is not blank or a ';' comment starts with '>'.
// Structure files start with records (HEADER, ATOM, data_...), never '>'.
func LooksLikeFASTA(head []byte) bool {
	for _, line := range strings.Split(string(head), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, ";") {
			continue
		}
		return strings.HasPrefix(t, ">")
	}
	return false
}

// Resolve turns one input (PDB ID, structure file, FASTA file of
// sequences or alignment file, told apart by content: IsAlignment) into
// targets.
func Resolve(arg, pdbDir string) ([]Target, error) { return resolve(arg, pdbDir, false) }

// resolve is Resolve; plm says --method plm was asked for, under which
// every FASTA file is an alignment.
func resolve(arg, pdbDir string, plm bool) ([]Target, error) {
	st, statErr := os.Stat(arg)
	switch {
	case statErr == nil && st.IsDir():
		return nil, fmt.Errorf("%w: %s is a directory; give PDB IDs, structure files or FASTA files", ErrInput, arg)
	case statErr == nil:
		return resolveFile(arg, plm)
	}
	code, chain, err := ParseID(arg)
	if err != nil {
		if bareSequence([]byte(arg)) && len(arg) > 8 {
			return nil, fmt.Errorf("%w: %.12s... (%d letters): a sequence, not a file or a PDB ID: write it to a FASTA file ('>name', then the sequence) and give the file", ErrInput, arg, len(arg))
		}
		return nil, fmt.Errorf("%w: %s: no such file, and not a PDB ID (1ENH_A, 1ENHA or 1enh)", ErrInput, arg)
	}
	if pdbDir == "" {
		return nil, fmt.Errorf("%w: %s: %w, and none was given", ErrInput, arg, ErrNoMirror)
	}
	if st, err := os.Stat(pdbDir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s: %w, and %s is not a directory here; a structure or FASTA file needs none", ErrInput, arg, ErrNoMirror, pdbDir)
	}
	s, _, err := pdb.Mirror{Dir: pdbDir}.Read(code)
	if err != nil {
		return nil, err
	}
	return chainsOf(arg, code, s, chain)
}

func resolveFile(path string, plm bool) ([]Target, error) {
	f, err := fileio.Open(path) // decompresses
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, path, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 4096)
	head, err := br.Peek(4096)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, path, err)
	}
	if IsAlignment(head, plm) || LooksLikeFASTA(head) {
		// An alignment, or FASTA whose gaps may come later than head:
		// read it all and look again.
		data, err := readAll(br, path)
		if err != nil {
			return nil, err
		}
		if IsAlignment(data, plm) {
			return resolveAlignment(path, data)
		}
		seqs, err := features.ReadSequences(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInput, path, err)
		}
		if len(seqs) == 0 {
			return nil, fmt.Errorf("%w: %s: no sequences", ErrInput, path)
		}
		var out []Target
		for _, s := range seqs {
			t := Target{Arg: path, ID: s.Name, Seq: s.Seq}
			if s.Err != nil {
				t.Err = fmt.Errorf("%w: %s: %w", ErrInput, path, s.Err)
			}
			out = append(out, t)
		}
		if hint := unalignedHint(data); hint != "" {
			out[0].Warnings = append(out[0].Warnings, path+": "+hint)
		}
		return out, nil
	}
	if bareSequence(head) {
		return nil, fmt.Errorf("%w: %s: a bare sequence, not a structure or FASTA file: put a header line ('>name') above it", ErrInput, path)
	}
	s, err := pdb.Read(br, path)
	if err != nil {
		return nil, err
	}
	// The chains are named CODE_CHAIN (1M8A_A): by the file's PDB code,
	// else its stem, upper-cased where it is a PDB ID; a stem naming a
	// chain too (1m8aA.pdb, 1CTF_A.pdb) names the file's unnamed chain.
	name := s.ID
	stem := strings.Split(filepath.Base(path), ".")[0]
	if code, chain, ok := pdbStem(stem); name == "" || ok && code == strings.ToUpper(name) {
		name = stem
		if ok && chain != "" {
			name = code + "_" + chain
		}
	}
	return chainsOf(path, name, s, "")
}

// pdbStem reads a file's stem as a PDB ID: a code of four letters and
// digits starting with 1-9, alone (1m8a), followed by a one-character
// chain (1m8aA) or by '_' and a chain of one to four (1CTF_A). The code
// is upper-cased, the chain kept as it is (chain IDs are case-sensitive);
// ok is false for any other stem (model, T1024, 3dmodel).
func pdbStem(stem string) (code, chain string, ok bool) {
	alnum := func(s string) bool {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
		return s != ""
	}
	if len(stem) < 4 || stem[0] < '1' || stem[0] > '9' || !alnum(stem[:4]) {
		return "", "", false
	}
	code, rest := strings.ToUpper(stem[:4]), stem[4:]
	switch {
	case rest == "":
	case len(rest) == 1 && alnum(rest):
		chain = rest
	case len(rest) >= 2 && len(rest) <= 5 && rest[0] == '_' && alnum(rest[1:]):
		chain = rest[1:]
	default:
		return "", "", false
	}
	return code, chain, true
}

// chainID names a chain of a structure: name (a PDB code or CODE_CHAIN
// from pdbStem, or a file's stem) and the chain's ID after one '_'
// (1M8A_A); a chain without an ID is name alone, and a name that already
// ends in the chain's ID (1CTF_A, chain A) is not given it twice.
func chainID(name, chain string) string {
	code, own, ok := pdbStem(name)
	if !ok {
		code = name
	}
	switch {
	case chain == "" && own == "":
		return code
	case chain == "":
		return code + "_" + own
	}
	return code + "_" + chain
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
		out = append(out, Target{Arg: arg, ID: chainID(code, c.ID), Seq: c.Sequence(), Residues: res})
	}
	if len(out) == 0 {
		if chain != "" {
			return nil, fmt.Errorf("%w: %s: no chain %q in %s", pdb.ErrNoChain, arg, chain, code)
		}
		return nil, fmt.Errorf("%w: %s: no protein chain", pdb.ErrNoChain, arg)
	}
	return out, nil
}

// ErrNoMirror: a PDB ID was given without a local PDB mirror
// (Config.PDBDir) to read its structure from.
var ErrNoMirror = errors.New("PDB IDs need a local PDB mirror")

// ModeError: the inputs given do not match the features the model was
// trained on (Config.SS, Config.MSADir).
type ModeError struct {
	Mode features.Mode
	// Input is the input that is missing or extra: "secondary
	// structure" (Config.SS) or "alignments" (Config.MSADir).
	Input string
	// Missing: the model needs Input and none was given; else Input was
	// given to a model trained without it.
	Missing bool
}

func (e *ModeError) Error() string {
	if e.Missing {
		return fmt.Sprintf("the model was trained on features with %s (mode %s), and none was given", e.Input, e.Mode)
	}
	return fmt.Sprintf("the model was trained without %s (mode %s), and some were given", e.Input, e.Mode)
}

// Mode inputs of a ModeError.
const (
	InputSS  = "PSIPRED secondary structure"
	InputMSA = "alignments"
)

// checkMode verifies that the inputs given match the model's feature
// mode. A model trained with alignments may go without Config.MSADir: an
// alignment file brings its own, and a target without one fails alone
// (predictOne).
func checkMode(mode features.Mode, cfg Config) error {
	switch {
	case mode.SS != (cfg.SS != ""):
		return &ModeError{Mode: mode, Input: InputSS, Missing: mode.SS}
	case !mode.MSA && cfg.MSADir != "":
		return &ModeError{Mode: mode, Input: InputMSA}
	}
	return nil
}

// loadFile is the default Config.Load: one model file.
func loadFile(path string) ([]*model.Model, string, error) {
	m, err := model.LoadModel(path)
	if err != nil {
		return nil, "", err
	}
	return []*model.Model{m}, path, nil
}

// Run resolves the inputs and predicts every target, writing outputs to
// cfg.Out. Every shard resolves every input, so that output names are the
// same in all shards and unique in the run, then predicts the targets
// whose index in the run is Shard modulo Shards; an input that fails to
// resolve is reported by the shard its own index falls to. It returns the
// outcomes of the inputs that failed to resolve, then one per target in
// input order; a failed input never stops the others.
func Run(ctx context.Context, cfg Config, args []string) ([]Outcome, error) {
	if cfg.Shards < 1 {
		cfg.Shards = 1
	}
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.RRMinSep < 1 {
		cfg.RRMinSep = DefaultRRMinSep
	}
	switch cfg.Method {
	case MethodAuto, MethodNetwork, MethodPLM:
	default:
		return nil, fmt.Errorf("unknown method %q (%s)", cfg.Method, strings.Join(Methods, ", "))
	}
	if len(cfg.Models) == 0 && cfg.Method != MethodPLM {
		return nil, fmt.Errorf("no model given")
	}
	if cfg.Load == nil {
		cfg.Load = loadFile
	}
	if len(cfg.Formats) == 0 {
		cfg.Formats = []string{"rr", "npy", "png"}
	}
	for _, f := range cfg.Formats {
		switch f {
		case "rr", "npy", "tsv", "png":
		default:
			return nil, fmt.Errorf("unknown format %q (rr, npy, tsv, png)", f)
		}
	}
	// The models, loaded once, shared by the workers: an inference pass
	// only reads them.
	var ms []*model.Model
	for _, spec := range cfg.Models {
		if cfg.Method == MethodPLM {
			break // plmDCA alone: no model
		}
		members, from, err := cfg.Load(spec)
		if err != nil {
			return nil, err
		}
		for _, m := range members {
			if err := checkMode(m.Arch.Mode, cfg); err != nil {
				return nil, fmt.Errorf("%s: %w", from, err)
			}
			if len(ms) > 0 && m.Arch.Labels != ms[0].Arch.Labels {
				return nil, fmt.Errorf("%s predicts %s, %s %s: an ensemble's members must predict the same contacts", from, m.Arch.Labels, cfg.Models[0], ms[0].Arch.Labels)
			}
			ms = append(ms, m)
		}
	}
	// The alignment files' models, where the models read no alignments.
	var ams []*model.Model
	if cfg.Method != MethodPLM && len(ms) > 0 && !ms[0].Arch.Mode.MSA {
		for _, spec := range cfg.AlignmentModels {
			members, from, err := cfg.Load(spec)
			if err != nil {
				return nil, err
			}
			for _, m := range members {
				switch {
				case !m.Arch.Mode.MSA || m.Arch.Mode.SS:
					return nil, fmt.Errorf("%s: a model for alignment files must be trained on alignments alone; this one was trained on %s features", from, m.Arch.Mode)
				case len(ams) > 0 && (m.Arch.Labels != ams[0].Arch.Labels || m.Arch.Mode != ams[0].Arch.Mode):
					return nil, fmt.Errorf("%s predicts %s from %s features, %s %s from %s: an ensemble's members must agree", from, m.Arch.Labels, m.Arch.Mode, cfg.AlignmentModels[0], ams[0].Arch.Labels, ams[0].Arch.Mode)
				}
				ams = append(ams, m)
			}
		}
	}
	threads := max(1, runtime.GOMAXPROCS(0)/cfg.Workers) // per chain; results do not depend on it
	var ss *features.SSSource
	if cfg.SS != "" {
		var err error
		if ss, err = features.OpenSSSource(cfg.SS); err != nil {
			return nil, err
		}
	}
	if err := fileio.CheckWritable(cfg.Out); err != nil {
		return nil, err
	}
	var all []Target
	var outcomes []Outcome
	// FASTA files are alignments (gaps or not) for plmDCA, and for models
	// trained on alignments where no alignment directory is given.
	fastaAligned := cfg.Method == MethodPLM || len(ms) > 0 && ms[0].Arch.Mode.MSA && cfg.MSADir == ""
	given := map[string]int{} // times each input was given: predicted once
	for _, a := range args {
		given[a]++
	}
	for i, a := range args {
		if given[a] < 0 {
			continue // a repeat, already resolved
		}
		n := given[a]
		given[a] = -1
		ts, err := resolve(a, cfg.PDBDir, fastaAligned)
		if err == nil && n > 1 && len(ts) > 0 {
			ts[0].Warnings = append(ts[0].Warnings, fmt.Sprintf("input %s given %d times: predicted once", a, n))
		}
		if err != nil {
			if i%cfg.Shards == cfg.Shard {
				outcomes = append(outcomes, Outcome{Arg: a, Err: err})
			}
			continue
		}
		all = append(all, ts...)
	}
	assignNames(all)
	var targets []Target
	for i := range all {
		if i%cfg.Shards == cfg.Shard {
			targets = append(targets, all[i])
		}
	}
	all = nil
	// Temporary files that killed earlier runs left for these targets'
	// outputs can go; those of a run still writing into cfg.Out (its
	// process alive) stay (outset.RemoveStale).
	var own []string
	for _, t := range targets {
		for _, f := range cfg.Formats {
			own = append(own, t.Name+"."+f)
		}
	}
	if err := outset.RemoveStale(cfg.Out, own...); err != nil {
		return nil, err
	}
	var sources []*Source // the search stage's, by target
	var searchNotes [][]string
	if cfg.Search != nil {
		var err error
		if sources, searchNotes, err = runSearch(ctx, cfg.Search, threads, cfg.Shard, cfg.Shards, targets); err != nil {
			return nil, err
		}
	}
	cfg.ctx = ctx
	if cfg.OnStart != nil {
		cfg.OnStart(len(targets))
	}
	results := make([]Outcome, len(targets))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i] = predictOne(ms, ams, threads, cfg, ss, targets[i])
				results[i].Err = forceHint(results[i].Err)
				if sources != nil {
					results[i].Alignment = sources[i]
					results[i].Notes = append(searchNotes[i], results[i].Notes...)
				}
				if cfg.OnDone != nil {
					mu.Lock()
					cfg.OnDone(results[i])
					mu.Unlock()
				}
			}
		}()
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

// forceHint adds what to do to a *memcheck.TooLargeError (a target
// refused for the memory available, Config.Memory); other errors are
// returned as they are.
func forceHint(err error) error {
	var tl *memcheck.TooLargeError
	if !errors.As(err, &tl) {
		return err
	}
	return fmt.Errorf("%w: skipped (--force tries anyway)", err)
}

func predictOne(ms, ams []*model.Model, threads int, cfg Config, ss *features.SSSource, t Target) Outcome {
	if t.Err != nil {
		return Outcome{Arg: t.Arg, ID: t.ID, L: len(t.Seq), Warnings: t.Warnings, Naming: t.Naming, Err: t.Err}
	}
	var checkErr error
	if cfg.Check != nil {
		checkErr = cfg.Check(&t)
	}
	o := Outcome{Arg: t.Arg, ID: t.ID, L: len(t.Seq), Warnings: t.Warnings, Naming: t.Naming}
	fail := func(err error) Outcome { o.Err = err; return o }
	if checkErr != nil {
		return fail(checkErr)
	}
	if cfg.Method == MethodPLM {
		return predictPlm(cfg, threads, t, o)
	}
	m := ms[0] // the ensemble's members share features and contacts
	if t.MSA != nil && !m.Arch.Mode.MSA && len(ams) > 0 {
		ms, m = ams, ams[0]
		ss = nil // the alignment models read no secondary structure
		o.Notes = append(o.Notes, fmt.Sprintf("an alignment: predicted with the alignment model %s (%s)", strings.Join(cfg.AlignmentModels, ", "), describe(ms)))
	}
	switch {
	case t.MSA != nil && !m.Arch.Mode.MSA && cfg.Method == MethodNetwork:
		return fail(fmt.Errorf("%w: %s: %w", ErrInput, t.Arg, ErrNoMSANetwork))
	case t.MSA != nil && !m.Arch.Mode.MSA:
		o.Notes = append(o.Notes, "an alignment, and the model reads none: predicted with plmDCA")
		return predictPlm(cfg, threads, t, o)
	case m.Arch.Mode.MSA && t.MSA == nil && cfg.MSADir == "":
		return fail(fmt.Errorf("%w: %s: %w", ErrInput, t.Arg, &ModeError{Mode: m.Arch.Mode, Input: InputMSA, Missing: true}))
	}
	if err := features.ValidSequence(t.Seq); err != nil {
		return fail(fmt.Errorf("%w: %s: %w", ErrInput, t.ID, err))
	}
	if cfg.Memory != nil {
		need, err := Estimate(ms, len(t.Seq), threads)
		if err != nil {
			return fail(err)
		}
		if m.Arch.Mode.Plm && t.MSA != nil { // the features' plmDCA fit comes first
			need = max(need, cfg.PlmEstimate(len(t.Seq), len(t.MSA.Rows), threads))
		}
		release, err := cfg.Memory.Acquire("", len(t.Seq), need)
		if release == nil {
			return fail(err)
		}
		defer release()
		if err != nil {
			o.Warnings = append(o.Warnings, err.Error()+": predicting it anyway")
		}
	}
	if w := features.NonStandard(t.Seq); w != "" {
		o.Warnings = append(o.Warnings, w)
	}
	if a := m.Arch; a.MaxLen > 0 && (o.L < a.MinLen || o.L > a.MaxLen) {
		o.Warnings = append(o.Warnings, fmt.Sprintf("length %d is outside the model's training lengths %d-%d: the prediction is an extrapolation (long chains drift towards higher probabilities)", o.L, a.MinLen, a.MaxLen))
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
	aln := t.MSA // an alignment file: its query is the sequence
	if aln == nil && cfg.MSADir != "" {
		path := features.FindMSA(cfg.MSADir, t.ID)
		if path == "" {
			return fail(fmt.Errorf("%w: %s: no alignment in %s", ErrInput, t.ID, cfg.MSADir))
		}
		var err error
		if aln, err = features.ReadAlignment(path); err != nil {
			return fail(err)
		}
	}
	// A model trained on msa+plm features gets its co-evolution channel
	// from plmDCA, fitted here as the features run fitted it.
	lowDepth := func(w *msa.Warning) {
		w.Path = aln.Path
		o.Warnings = append(o.Warnings, w.String())
	}
	c, err := features.ComputeWith(cfg.context(), t.ID, t.Seq, pred, aln, features.Options{Plm: m.Arch.Mode.Plm, Potts: cfg.plmOptions(threads), LowDepth: lowDepth})
	if err != nil {
		return fail(err)
	}
	l := len(t.Seq)
	var report func(float64, bool)
	if cfg.OnNetwork != nil {
		flops := 0.0
		for _, m := range ms {
			flops += m.Arch.Spec().InferenceFLOPs(1, l)
		}
		report = cfg.OnNetwork(&t, flops)
	}
	p, err := meanProbabilitiesAfter(cfg.ctx, ms, threads, &model.Sample{ID: t.ID, Chain: c}, report)
	if report != nil {
		report(-1, true)
	}
	if err != nil {
		return fail(err)
	}
	for i := 0; i < l; i++ { // the upper triangle is the prediction
		for j := 0; j < i; j++ {
			p[i*l+j] = p[j*l+i]
		}
		p[i*l+i] = 0 // not predicted: see WriteNPY
	}
	var truth *pdb.Contacts // the model's kind of contact
	if t.Residues != nil {
		truth = pdb.NewContacts(t.Residues, m.Arch.Labels)
		cm := metrics.Evaluate(t.ID, p, truth)
		o.Metrics = &cm
	}
	method := fmt.Sprintf("contactmap %s (%s configuration, %s features)", strings.ToUpper(string(m.Arch.Kind)), m.Arch.Config, m.Arch.Mode)
	if len(ms) > 1 {
		method = fmt.Sprintf("contactmap ensemble of %d models (%s)", len(ms), describe(ms))
	}
	return writeOutputs(cfg, t, o, p, truth, method, m.Arch.Labels.String())
}

// Estimate returns the memory, in bytes, that predicting one chain of
// length l with the models ms and threads workers per convolution needs:
// memcheck.Estimate of the networks (the largest member's inference pass:
// an ensemble's members run one after another over one pass, see
// meanProbabilities, so ten members need what the largest one does) with
// TargetBytes and the largest member's separation channels as the
// caller's buffers.
func Estimate(ms []*model.Model, l, threads int) (int64, error) {
	specs := make([]pairnet.Spec, len(ms))
	var fixed int64
	for i, m := range ms {
		specs[i] = m.Arch.Spec()
		fixed = max(fixed, 4*int64(l)*int64(l)*int64(m.Arch.SepChannels))
	}
	return memcheck.Estimate(specs, l, threads, TargetBytes(l)+fixed)
}

// TargetBytes bounds the memory predicting one chain of length l takes
// besides the inference pass and the model's separation channels: its
// features and input batch (OneD, the packed TwoD, X1, X2 in the larger,
// dense layout), the float64 ensemble sum (model.EnsembleMean, one for
// any number of members) and the mean map, the RR file's pairs (every
// one, as with RRMax{All: true}; the default 5L take far less), the
// heatmap's image, its encoder's copy and its pooled cells (at most
// heatmap.MaxSide a side), and the true contacts, all counted as alive
// together.
func TargetBytes(l int) int64 {
	n := int64(l)
	pairs := n * (n + 1) / 2
	b := 2 * 4 * n * features.N1D        // OneD, X1
	b += 4 * pairs * features.N2D        // TwoD
	b += 4 * n * n * features.N2D        // X2
	b += (8 + 4) * n * n                 // ensemble sum, mean
	b += 24 * pairs                      // RR pairs, all of them kept (Pair: 24 bytes)
	side := int64(heatmap.Side(l)) + 300 // the heatmap's side with its margins and legend
	b += 3 * 4 * side * side             // RGBA image, encoder, the pooled cells
	b += 2 * pairs                       // true contacts: known, contact
	return b
}

// meanProbabilities returns the L x L contact probabilities of one
// sample, the mean over the models (model.EnsembleMean, in the models'
// order), at the memory of one member: the members run one after another
// over one inference pass, whose pool of released buffers the next member
// takes its maps from, and each adds its logits to the mean in place
// (AddLogits: no map of its own) before the next starts. A member whose
// pass is estimated larger than every one before starts a fresh pass
// instead, the old pool given back first. For passes of collectMin bytes
// or more, the garbage collector runs after each member (and the pass is
// dropped after the last), so that a member's garbage (the inputs'
// separation channels, the logits, the layers' transient weights) is
// collected before the next member, or the outputs, allocate: the
// collector would otherwise let it pile up to about the pool's size
// (GOGC=100) before collecting it.
func meanProbabilities(ms []*model.Model, threads int, s *model.Sample) ([]float32, error) {
	return meanProbabilitiesAfter(nil, ms, threads, s, nil)
}

// meanProbabilitiesAfter is meanProbabilities that stops between two
// layers of a member once ctx (when not nil) is done, returning its Err,
// and calls report (when not nil) with 0 as the first member starts,
// then after each layer with the share of the members' work done
// (Config.OnNetwork; end false).
func meanProbabilitiesAfter(ctx context.Context, ms []*model.Model, threads int, s *model.Sample, report func(done float64, end bool)) ([]float32, error) {
	l := s.L()
	var after func(done, total float64) error // of the member i
	var i int
	var works []float64      // each member's InferenceFLOPs
	var before, work float64 // the work of the members before i, and of all
	if report != nil {
		for _, m := range ms {
			works = append(works, m.Arch.Spec().InferenceFLOPs(1, l))
			work += works[len(works)-1]
		}
	}
	if ctx != nil || report != nil {
		after = func(done, total float64) error {
			if report != nil && total > 0 {
				d := min(1, (before+done/total*works[i])/work)
				if i == len(ms)-1 && done == total {
					d = 1
				}
				report(d, false)
			}
			if ctx != nil {
				return ctx.Err()
			}
			return nil
		}
	}
	if report != nil {
		report(0, false)
	}
	var mean model.EnsembleMean
	var pass *scnn.Pass
	var b *model.Batch
	var largest int64 // InferenceBytes of the largest member run in pass
	collect := false
	for ; i < len(ms); i++ {
		m := ms[i]
		need, err := m.Arch.Spec().InferenceBytes(l, threads)
		if err != nil {
			return nil, err
		}
		collect = collect || need >= collectMin
		if pass == nil || need > largest {
			if pass != nil {
				pass = nil
				if collect {
					runtime.GC() // the old pool, before the new pass allocates
				}
			}
			pass, largest = scnn.Inference(threads), need
		}
		if b == nil || b.X2.Layout != m.Net.Layout() {
			b = model.NewBatch([]*model.Sample{s}, m.Packed())
		}
		logits, err := m.ForwardAfter(pass, b, after)
		if err != nil {
			return nil, err
		}
		if report != nil {
			before += works[i]
		}
		// The logits, a copy of their own size, are left to the
		// collector: released to the pool, they would stay there, too
		// small for the maps of the next member.
		mean.AddLogits(logits, 0, l)
		if collect && i < len(ms)-1 {
			runtime.GC()
		}
	}
	pass, b = nil, nil
	if collect {
		runtime.GC() // the pool, before the outputs allocate
	}
	return mean.Mean(), nil
}

// collectMin is the smallest estimated inference pass (bytes) after which
// meanProbabilities runs the garbage collector: about L = 350 for the
// shipped default networks. Below it the garbage is small and a
// collection per member would cost more time than the memory is worth.
// Tests lower it.
var collectMin int64 = 64 << 20

// describe names the kinds and configurations of an ensemble's members:
// "5 SCNN default", "3 CNN default + 2 SCNN default".
func describe(ms []*model.Model) string {
	var order []string
	count := map[string]int{}
	for _, m := range ms {
		k := strings.ToUpper(string(m.Arch.Kind)) + " " + m.Arch.Config
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%d %s", count[k], k)
	}
	return strings.Join(parts, " + ") + fmt.Sprintf(", %s features", ms[0].Arch.Mode)
}

// assignNames gives every target a unique output name (unique ignoring
// case, for case-insensitive file systems): outset.SafeName of its ID, and for
// the second and later targets with the same name "_2", "_3", ... with a
// warning that says so. runsummary.Name is taken by the run's summary
// (summary.tsv), so a target of that name is written as summary_2.
func assignNames(ts []Target) {
	taken := map[string]int{runsummary.Name: -1} // lower-case name -> index of its target
	for i := range ts {
		ts[i].Name = outset.SafeName(ts[i].ID)
	}
	for i := range ts {
		base := ts[i].Name
		name := base
		first, clash := taken[strings.ToLower(name)]
		for k := 2; clash; k++ {
			name = fmt.Sprintf("%s_%d", base, k)
			_, clash = taken[strings.ToLower(name)]
		}
		if name != base && first < 0 {
			ts[i].Naming = fmt.Sprintf("output name %s is the run's summary (%s.tsv): writing %s.*", base, runsummary.Name, name)
		} else if name != base {
			ts[i].Naming = fmt.Sprintf("output name %s is taken by %s from %s: writing %s.*", base, ts[first].ID, ts[first].Arg, name)
		} else if base != ts[i].ID {
			ts[i].Naming = fmt.Sprintf("ID %q is written as %s.*", ts[i].ID, name)
		}
		ts[i].Name = name
		taken[strings.ToLower(name)] = i
	}
}
