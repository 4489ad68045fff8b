package predict

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/outset"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/consensus"
	"github.com/contactmap/contactmap/rna/homology"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// OutputsHelp describes what Run writes and reports, for the help of
// rna predict.
const OutputsHelp = `Outputs per molecule, in --out: NAME.bpseq, NAME.ct, NAME.db (dot-bracket),
NAME.png (the pair probabilities, an arc diagram of the structure under
them), NAME.svg (the structure drawn in RNAplot's simple radial layout,
numbered every 10 bases), written as a set (all replaced or none);
existing outputs are not overwritten without --force. A
molecule whose estimated memory exceeds the memory available is skipped
(--force tries it anyway; with --workers N, N molecules are predicted at
once, each checked alone). A molecule outside the training lengths of
the --model networks, and a network prediction with no base pair, get a
warning. --strict refuses what is otherwise warned of.

The run's summary: a short table of the molecules predicted on
standard error (none when none was), summary.tsv in --out (a row per molecule:
name, length, status ok, skipped or failed, outputs, method, the
structure's energy, the error), and on standard error the warnings and
one failure list, each error once. A failed input does not stop the
others, and makes the exit status 1.`

// Config configures a prediction run (rna predict): every setting as a
// field, the command's flags mapped one to one.
type Config struct {
	// Method names the predictor, one of ssnet.Methods ("": the network).
	Method string
	// Models are the network method's models, each resolved by
	// Shipped.Load (none: Shipped.Default); several make an ensemble, the
	// structure decoded from the mean of their probabilities.
	Models []string
	// Decoder decodes the network's probabilities ("": the first
	// model's own, Shipped.Decoder).
	Decoder ssnet.Decoder
	// Refs are the reference molecules of known structure of homology
	// transfer and of the template networks: comma-separated files
	// (ssnet.ReadSetList); "" takes a model's own (Shipped.Refs).
	Refs string
	// MaxSpan is the largest base-pair span j-i+1 of the folds (mfe,
	// centroid, mea-pf; 0: any).
	MaxSpan int
	// Formats are the outputs written per molecule, in Out.
	Formats []ssnet.Format
	Out     string
	// Force overwrites existing outputs, and predicts molecules whose
	// memory estimate exceeds the memory available (with a warning).
	Force bool
	// Strict refuses, instead of warning of them, records with IUPAC
	// ambiguity codes, records that look like DNA, and molecules outside
	// the training lengths of the networks.
	Strict bool
	// Workers are the molecules predicted at once (0: one); Threads the
	// goroutines of each molecule's convolutions and folds (0: the CPUs
	// divided by Workers). The predictions depend on neither.
	Workers, Threads int
	// Shard and Shards select the molecules of this run: those whose
	// index in the inputs is Shard modulo Shards (0 and 0 or 1: all).
	// Every shard names the outputs alike; the inputs that cannot be
	// read are shard 0's.
	Shard, Shards int
	// Stdin is read for the input "-".
	Stdin io.Reader
	// Shipped resolves the models and their references.
	Shipped Shipped
	// Homologs, when set, finds each molecule's homologs (rna predict
	// --db: an nhmmer search of a sequence database, wired by the
	// command); the network method then predicts from the consensus of
	// its probabilities with the homologs' ensembles
	// (ssnet.MethodOptions.Homologs), and the consensus method needs it.
	// HomologsFrom says where they come from, for the run's header.
	Homologs     ssnet.HomologFinder
	HomologsFrom string

	// OnStart, when set, is called once the inputs are read, before any
	// prediction, with the molecules of this shard and where the
	// predictor came from ("shipped rna-scnn (...); 550 reference
	// molecules from ...; decoder greedy").
	OnStart func(molecules int, from string)
	// OnDone, when set, is called as each molecule is done, one call at
	// a time.
	OnDone func(Outcome)
	// OnFold and OnNetwork report the work on one molecule
	// (ssnet.MethodOptions).
	OnFold    func(name string, l int) (progress func(done, total float64), end func())
	OnNetwork func(name string, l int, flops float64) func(done float64, end bool)
}

// Outcome is what became of one molecule, or of an input that could not
// be read (Base empty, Err naming it). Its status is ok (Err nil),
// skipped (Skipped: refused before any work, because its outputs exist,
// under Strict, or for memory) or failed.
type Outcome struct {
	Name   string
	Length int
	Base   string // its outputs' base name in Out, unique in the run
	Files  []string
	// Method is the predictor, for the summary: the method, and for the
	// network its models ("network rna-scnn+rna-scnn-seq").
	Method string
	// Homologs is the number of homologs the consensus used (DB), -1
	// where none was searched for (no DB, a template the network sees,
	// a molecule over ssnet.ConsensusMaxLen).
	Homologs  int
	Structure *rna.Structure // the prediction, with its energy where it folds
	Known     *rna.Structure // the input's own structure, if any
	Warnings  []string       // what the user should know; the outputs were written
	Skipped   bool
	Err       error
}

// Unused lists the settings a method does not read, as the command's
// flags name them ("model", "decoder", "refs", "max-span"), so that they
// are said to be ignored, not silently dropped.
func Unused(method string) []string {
	m, _ := ssnet.MethodNamed(method)
	network := m.Name == ssnet.MethodNetwork
	var out []string
	if !network {
		out = append(out, "model", "decoder")
	}
	if !network && m.Needs&ssnet.NeedsRefs == 0 {
		out = append(out, "refs")
	}
	if !m.Folds {
		out = append(out, "max-span")
	}
	return out
}

// Run predicts the molecules of the inputs (files and "-", ReadInputs)
// by cfg.Method and writes their outputs into cfg.Out: one Outcome per
// molecule of this shard, after one per input that could not be read. A
// molecule that fails does not stop the others. Once ctx is done no
// molecule starts (its Err is ctx's error) and those under way stop.
// The error is the run's own: a model or references that cannot be
// read, an output directory that cannot be written.
func Run(ctx context.Context, cfg Config, args []string) ([]Outcome, error) {
	method := cfg.Method
	if method == "" {
		method = ssnet.MethodNetwork
	}
	m, ok := ssnet.MethodNamed(method)
	if !ok {
		return nil, fmt.Errorf("%w: --method %q: %s", ssnet.ErrUsage, method, ssnet.MethodNames())
	}
	specs := cfg.Models
	if len(specs) == 0 {
		specs = []string{cfg.Shipped.Default}
	}
	decoder := cfg.Decoder
	if decoder == "" && method == ssnet.MethodNetwork { // the (first) shipped model's own
		decoder = cfg.Shipped.decoderOf(specs[0])
	}
	workers := max(cfg.Workers, 1)
	threads := cfg.Threads // per molecule
	if threads == 0 {
		threads = max(1, runtime.GOMAXPROCS(0)/workers)
	}
	shard, shards := cfg.Shard, max(cfg.Shards, 1)
	var nets []network
	from := method
	if method == ssnet.MethodNetwork {
		var froms []string
		for _, spec := range specs {
			members, models, fs, err := cfg.Shipped.loadMembers(spec) // a shipped ensemble's, or "a+b"
			if err != nil {
				return nil, err
			}
			for k, member := range members {
				nets = append(nets, network{Network: ssnet.Network{Name: member, Model: models[k]}, Spec: member})
			}
			froms = append(froms, fs...)
		}
		from = strings.Join(froms, " + ")
		if len(nets) > 1 {
			from = fmt.Sprintf("an ensemble of %d networks (the mean of their probabilities): %s", len(nets), from)
		}
	}
	// The references: a shipped network's own (its training files, in
	// training's order); for a model file and homology transfer, the 16S
	// training set (Shipped.Refs of a name not shipped); cfg.Refs for
	// all. Read once per set of files.
	refSets := map[string]*homology.Index{}
	loadRefs := func(of string) (*homology.Index, error) {
		var mols []ssnet.Molecule
		var name string
		var err error
		if cfg.Refs == "" {
			mols, name, err = cfg.Shipped.Refs(of)
		} else if mols, err = ssnet.ReadSetList(cfg.Refs); err != nil {
			return nil, fmt.Errorf("--refs: %w", err)
		} else {
			name = cfg.Refs
		}
		if err != nil {
			return nil, err
		}
		if idx, ok := refSets[name]; ok {
			return idx, nil
		}
		idx := ssnet.TemplateRefs(mols)
		refSets[name] = idx
		from += fmt.Sprintf("; %d reference molecules from %s", len(mols), name)
		return idx, nil
	}
	var refs *homology.Index // of homology transfer
	if m.Needs&ssnet.NeedsRefs != 0 {
		var err error
		if refs, err = loadRefs(""); err != nil {
			return nil, err
		}
	}
	for i := range nets {
		n := &nets[i]
		if n.Model.Record.UsesTemplates() {
			var err error
			if n.Refs, err = loadRefs(n.Spec); err != nil {
				return nil, err
			}
		}
		// What a shipped network was trained on: its training files
		// (its references, built in), their lengths.
		if files, ok := cfg.Shipped.TrainingFiles(n.Spec); ok {
			mols, _, err := cfg.Shipped.Refs(n.Spec)
			if err != nil {
				return nil, err
			}
			n.Train = cfg.Shipped.trainingOf(files, mols)
		} else {
			n.Train.What = n.Model.Record.Data
		}
	}
	if len(nets) > 0 {
		from += fmt.Sprintf("; decoder %s", decoder)
	}
	var homologs ssnet.HomologFinder
	switch {
	case cfg.Homologs != nil && method != ssnet.MethodNetwork && method != ssnet.MethodConsensus:
		return nil, fmt.Errorf("%w: --db is read by the network and consensus methods, not by %s", ssnet.ErrUsage, method)
	case cfg.Homologs != nil:
		homologs = counted(cfg.Homologs)
		from += fmt.Sprintf("; homologs %s, %s", cfg.HomologsFrom, consensusRule)
	case method == ssnet.MethodConsensus:
		return nil, fmt.Errorf("%w: --method consensus needs a sequence database to search: give --db", ssnet.ErrUsage)
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	if err := fileio.CheckWritable(cfg.Out); err != nil {
		return nil, err
	}
	// Temporary files of killed runs go; a live run's stay.
	if err := outset.RemoveStale(cfg.Out); err != nil {
		return nil, err
	}
	stdin := cfg.Stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	all, readErrs := ReadInputs(args, stdin)
	// Names: the same in every shard, unique in the run.
	jobs := make([]job, len(all))
	used := map[string]int{}
	for i, in := range all {
		base := outset.SafeName(in.Name) // the protein outputs' rule
		key := strings.ToLower(base)
		j := job{in: in, homologs: -1}
		if n := used[key]; n > 0 {
			j.warnings = append(j.warnings, fmt.Sprintf("name used before; writing %s_%d", base, n+1))
			base = fmt.Sprintf("%s_%d", base, n+1)
		}
		used[key]++
		j.base = base
		jobs[i] = j
	}
	var mine []*job
	for i := range jobs {
		if i%shards == shard {
			mine = append(mine, &jobs[i])
		}
	}
	if shard != 0 {
		readErrs = nil // reported by shard 0
	}
	if cfg.OnStart != nil {
		cfg.OnStart(len(mine), from)
	}
	r := runner{cfg: cfg, method: m, nets: nets, specs: specs, threads: threads, summary: summaryMethod(method, specs)}
	r.predict = m.New(ssnet.MethodOptions{Workers: threads, MaxSpan: cfg.MaxSpan, Map: slices.Contains(cfg.Formats, ssnet.PNG), Energy: true,
		Refs: refs, Networks: r.members(), Decoder: decoder, OnFold: cfg.OnFold, OnNetwork: cfg.OnNetwork, Homologs: homologs})
	queue := make(chan *job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < min(workers, max(1, len(mine))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				r.run(ctx, j)
				if cfg.OnDone != nil {
					mu.Lock()
					cfg.OnDone(r.outcome(j))
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range mine {
		if ctx.Err() != nil {
			j.err = ctx.Err()
			continue
		}
		queue <- j
	}
	close(queue)
	wg.Wait()
	outs := make([]Outcome, 0, len(readErrs)+len(mine))
	for _, e := range readErrs {
		outs = append(outs, Outcome{Err: e})
	}
	for _, j := range mine {
		outs = append(outs, r.outcome(j))
	}
	return outs, nil
}

// summaryMethod is the predictor of a molecule for the summary: the
// method, and for the network its models.
func summaryMethod(method string, specs []string) string {
	if method != ssnet.MethodNetwork {
		return method
	}
	return "network " + strings.Join(specs, "+")
}

// job is one molecule of a run and what became of it.
type job struct {
	in       Input
	base     string // its outputs' name in the run
	warnings []string
	s        *rna.Structure
	files    []string
	skipped  bool
	err      error
	homologs int // of the consensus; -1: none searched
}

// runner predicts the molecules of a run.
type runner struct {
	cfg     Config
	method  ssnet.Method
	nets    []network
	specs   []string // the models asked for (a shipped ensemble unexpanded)
	threads int      // per molecule
	summary string
	predict ssnet.MethodPredictor
}

// members are the run's networks as the network method takes them.
func (r *runner) members() []ssnet.Network {
	var out []ssnet.Network
	for _, n := range r.nets {
		out = append(out, n.Network)
	}
	return out
}

func (r *runner) outcome(j *job) Outcome {
	method := r.summary
	switch {
	case j.homologs >= 0 && r.method.Name == ssnet.MethodConsensus:
		method = fmt.Sprintf("consensus of %d homologs", j.homologs)
	case j.homologs >= 0:
		method += fmt.Sprintf(", consensus of %d homologs", j.homologs)
	case r.cfg.Homologs != nil && j.err == nil && !j.skipped:
		method += fmt.Sprintf(", no consensus (a template the network sees, or over %d nt)", ssnet.ConsensusMaxLen)
	}
	return Outcome{Name: j.in.Name, Length: len(j.in.Seq), Base: j.base, Files: j.files, Method: method, Homologs: j.homologs,
		Structure: j.s, Known: j.in.Known, Warnings: j.warnings, Skipped: j.skipped, Err: j.err}
}

// run checks a molecule (outputs there, Strict, memory, the networks'
// training lengths), predicts it and writes its outputs, recording
// warnings and the error in j.
func (r *runner) run(ctx context.Context, j *job) {
	in, cfg := j.in, r.cfg
	warn := func(format string, a ...any) { j.warnings = append(j.warnings, fmt.Sprintf(format, a...)) }
	skip := func(err error) { j.err, j.skipped = err, true }
	// What Strict refuses, else a warning.
	var doubts []string
	if in.Ambiguous > 0 {
		doubts = append(doubts, fmt.Sprintf("%d IUPAC ambiguity codes (R Y K M S W B D H V) read as N", in.Ambiguous))
	}
	if in.DNA {
		doubts = append(doubts, "its letters hold T and no U: a DNA sequence, read as RNA (T as U)")
	}
	if len(r.nets) > 0 {
		if t := trainingOfAll(r.nets); t.Max > 0 && (len(in.Seq) < t.Min || len(in.Seq) > t.Max) {
			doubts = append(doubts, fmt.Sprintf("length %s nt is outside the training lengths of %s (%s): the prediction is an extrapolation", thousands(len(in.Seq)), netNames(r.nets), t))
		}
	}
	for _, d := range doubts {
		if cfg.Strict {
			skip(fmt.Errorf("%s: refused under --strict", d))
			return
		}
		warn("%s", d)
	}
	if err := checkOutputs(cfg.Out, j.base, cfg.Formats, cfg.Force); err != nil {
		skip(err)
		return
	}
	// The folds (fold.MemoryEstimate) beside the pair map and the PNG,
	// and the networks' passes, before any allocation.
	warning, err := CheckFoldMemory(r.method.Name, len(in.Seq), cfg.MaxSpan, cfg.Formats, cfg.Force)
	if warning != "" {
		warn("%s", warning)
	}
	if err == nil && len(r.nets) > 0 {
		warning, err = CheckNetworkMemory(r.members(), len(in.Seq), r.threads, cfg.Force)
		if warning != "" {
			warn("%s", warning)
		}
	}
	if err != nil {
		j.err, j.skipped = err, isTooLarge(err)
		return
	}
	s, p, err := r.predict(context.WithValue(ctx, jobKey{}, j), &ssnet.Molecule{Structure: &rna.Structure{Name: in.Name, Seq: in.Seq}})
	if err == nil {
		j.files, err = ssnet.WriteOutputs(ctx, cfg.Out, j.base, s, p, in.Known, cfg.Formats)
	}
	if err != nil {
		j.err = err
		return
	}
	j.s = s
	if len(r.nets) > 0 && len(s.Pairs()) == 0 {
		// Nothing found is said: a network far from its training
		// molecules (the 16S network on a tRNA) may predict no pair.
		try := "try --method centroid"
		if len(r.specs) != 1 || r.specs[0] != cfg.Shipped.Default {
			try = "try the default " + cfg.Shipped.Default + " or --method centroid"
		}
		var trained []string
		for _, n := range r.nets {
			name := n.Spec
			if len(r.specs) == 1 {
				name = r.specs[0] // a shipped ensemble by its name
			}
			if t := n.Train.String(); t != "" && !slices.Contains(trained, name+" was trained on "+t) {
				trained = append(trained, name+" was trained on "+t)
			}
		}
		if len(trained) > 0 {
			try = strings.Join(trained, "; ") + "; " + try
		}
		warn("the network predicted no base pair (%s)", try)
	}
}

// checkOutputs refuses to overwrite: it fails, naming the file, when an
// output DIR/BASE.FORMAT exists, unless force.
func checkOutputs(dir, base string, formats []ssnet.Format, force bool) error {
	if force {
		return nil
	}
	for _, f := range formats {
		p := filepath.Join(dir, base+"."+string(f))
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("%s exists: not overwritten (give --force to overwrite, or another --out)", p)
		}
	}
	return nil
}

// consensusRule says how the homologs are chosen and used, for the
// run's header.
var consensusRule = fmt.Sprintf("at most %d homologs covering half of the query, under %.0f%% identical to it and to each other; the consensus decoded by MEA gamma %d; none over %d nt or where a network sees a template",
	consensus.DefaultSelect.Max, 100*consensus.DefaultSelect.MaxIdentity, ssnet.ConsensusGamma, ssnet.ConsensusMaxLen)

// jobKey is the context key of the job a prediction is for, so that the
// homolog finder records the homologs it found.
type jobKey struct{}

// counted is find recording the number of homologs it found in the
// molecule's job (the context's jobKey), for the summary.
func counted(find ssnet.HomologFinder) ssnet.HomologFinder {
	return func(ctx context.Context, name, seq string) ([]consensus.Homolog, error) {
		hs, err := find(ctx, name, seq)
		if err != nil {
			return nil, fmt.Errorf("homolog search: %w", err)
		}
		if j, ok := ctx.Value(jobKey{}).(*job); ok {
			j.homologs = len(hs)
		}
		return hs, nil
	}
}
