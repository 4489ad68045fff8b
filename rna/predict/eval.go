package predict

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// EvalConfig configures an evaluation (Eval, rna eval).
type EvalConfig struct {
	// Models are shipped model names or model files (Shipped.Load), each
	// evaluated under every decoder of Decoders.
	Models   []string
	Decoders []ssnet.Decoder
	// Set is the file of the molecules evaluated (ssnet.ReadSet); "":
	// the bundled file of Split (ssnet.SplitFile).
	Set, Split string
	// Train are the training molecules (comma-separated files), for the
	// overlap analysis, homology transfer and template networks; ""
	// takes the training files of the shipped models among Models
	// (Shipped.TrainFilesOf), else DefaultTrain.
	Train, DefaultTrain string
	// MFECache and CentroidCache are files of cached MFE and centroid
	// structures, for the networks with energy channels and the MFE and
	// centroid baselines ("": fold every molecule); FoldSeed a file of
	// read-only folds looked up first (ssnet.ReadFoldSeed; "": none).
	MFECache, CentroidCache, FoldSeed string
	// EnsembleCache is the file of cached ensemble channels
	// (ssnet.EnsembleCache) for the networks with the ensemble channel,
	// appended as they are computed ("": compute every molecule's).
	EnsembleCache string
	// Baselines adds the model-free baselines (ssnet.Baselines).
	Baselines bool
	// Homologs, when set, finds each molecule's homologs (as rna predict
	// --db; HomologsFrom says from where): each model and
	// decoder gets a second row, "..., with the consensus" (the
	// network's probabilities averaged with the homologs' ensembles,
	// ssnet.ConsensusMap, decoded by ssnet.DecodeConsensus; a molecule
	// whose template a network sees, or over ssnet.ConsensusMaxLen,
	// decoded as the first row decodes it), and with Baselines the
	// consensus method is a baseline row.
	Homologs     ssnet.HomologFinder
	HomologsFrom string
	Workers      int // goroutines per convolution (0: runtime.GOMAXPROCS(0))
	Shipped      Shipped
	// Log, when set, gets the evaluation's notes (a stale fold seed, a
	// baseline left out); Progress reports each row's molecules and the
	// MFE folds.
	Log      io.Writer
	Progress ssnet.Progress
}

// Eval evaluates the models under each decoder, and the baselines, on
// the set: a row per model and decoder, then per baseline, with the
// set's overlap with the training molecules. A template network
// evaluated on its own training file, or shipped models trained on
// different files without Train, is an ssnet.ErrUsage.
func Eval(ctx context.Context, cfg EvalConfig) (*ssnet.EvalReport, error) {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	if cfg.Set == "" {
		var err error
		if cfg.Set, err = ssnet.SplitFile(cfg.Split); err != nil {
			return nil, err
		}
	}
	trainFiles := cfg.Train
	if trainFiles == "" {
		var err error
		if trainFiles, err = cfg.Shipped.TrainFilesOf(cfg.Models, cfg.DefaultTrain); err != nil {
			return nil, err
		}
	}
	set, err := ssnet.ReadSet(cfg.Set)
	if err != nil {
		return nil, err
	}
	seed := ssnet.NewFoldSeed()
	if cfg.FoldSeed != "" {
		if seed, err = ssnet.ReadFoldSeed(cfg.FoldSeed); err != nil {
			return nil, err
		}
		if seed.Stale {
			fmt.Fprintf(log, "contactmap rna eval: %s holds the folds of another rna/fold (fingerprint %s, now %s): not used; make rna-fold-cache rebuilds it\n", cfg.FoldSeed, seed.Fingerprint, ssnet.FoldFingerprint())
		}
	}
	train, err := ssnet.ReadSetList(trainFiles)
	if err != nil {
		return nil, err
	}
	report := &ssnet.EvalReport{Set: cfg.Set, Molecules: len(set), Overlaps: ssnet.Overlaps(set, train)}
	disjoint := ssnet.Disjoint(report.Overlaps)
	// The training molecules are the references of homology transfer and
	// of the template networks; evaluating the training split itself
	// would find every molecule as its own template.
	sameAsTrain := false
	for _, f := range strings.Split(trainFiles, ",") {
		sameAsTrain = sameAsTrain || filepath.Clean(cfg.Set) == filepath.Clean(strings.TrimSpace(f))
	}
	refs := ssnet.TemplateRefs(train)
	addRow := func(name string, params int, scores []ssnet.MolScore) {
		report.Rows = append(report.Rows, ssnet.NewEvalRow(name, params, scores, disjoint))
	}
	// The MFE structures the networks with energy channels and the MFE
	// baseline read: from the seed, the cache, or folded once for both.
	attachMFE := func() error {
		if ssnet.AttachSeededMFE(set, seed.MFE) > 0 {
			return ssnet.AttachMissingMFE(ctx, set, cfg.MFECache, cfg.Progress)
		}
		return nil
	}
	homologs := cfg.Homologs
	if homologs != nil {
		fmt.Fprintf(log, "contactmap rna eval: homologs %s, %s\n", cfg.HomologsFrom, consensusRule)
	}
	templated := false
	var ensCache *ssnet.EnsembleCache // read once, when a network first needs a channel
	for _, path := range cfg.Models {
		_, ms, _, err := cfg.Shipped.loadMembers(path)
		if err != nil {
			return nil, err
		}
		var names []string
		params := 0
		for _, m := range ms {
			if err := ssnet.SameInputs(ms[0], m); err != nil { // refused before any channel is computed
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			names = append(names, networkName(m.Record))
			params += m.Net.Trainable()
		}
		r := ms[0].Record
		if r.UsesTemplates() && !templated {
			if sameAsTrain {
				return nil, fmt.Errorf("%w: %s takes homology templates from the training molecules; evaluate it on another split than the training file", ssnet.ErrUsage, path)
			}
			if err := ssnet.AttachTemplates(ctx, set, refs, false, 0); err != nil {
				return nil, err
			}
			templated = true
		}
		if r.UsesEnergy() {
			if err := attachMFE(); err != nil {
				return nil, err
			}
		}
		// Every ensemble channel of the network (its further ones at
		// other temperatures too), those not attached under its rules.
		for _, f := range r.EnsembleFolds() {
			missing := 0 // AttachEnsembleFold ticks once for each, cached or computed
			for k := range set {
				if !set[k].HasEnsemble(f) {
					missing++
				}
			}
			if missing == 0 {
				continue
			}
			if ensCache == nil {
				if ensCache, err = ssnet.ReadEnsembleCache(cfg.EnsembleCache); err != nil {
					return nil, err
				}
			}
			parallel := cfg.Workers
			if parallel <= 0 {
				parallel = runtime.GOMAXPROCS(0)
			}
			tick, end := cfg.Progress.Start(missing, f.Stage())
			err = ssnet.AttachEnsembleFold(ctx, f, set, ensCache, cfg.EnsembleCache, parallel, tick)
			end()
			if err != nil {
				return nil, err
			}
		}
		name := names[0]
		if len(ms) > 1 {
			name = fmt.Sprintf("ensemble of %d (%s)", len(ms), strings.Join(names, " + "))
		}
		tick, end := cfg.Progress.Start(len(set), name)
		scores, err := ssnet.EvaluateEnsembleDecoders(ctx, set, ms, cfg.Workers, cfg.Decoders, tick)
		end()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for k, d := range cfg.Decoders {
			addRow(fmt.Sprintf("%s, %s", name, d), params, scores[k])
		}
		if homologs == nil {
			continue
		}
		for _, d := range cfg.Decoders {
			row := fmt.Sprintf("%s, %s, with the consensus", name, d)
			tick, end := cfg.Progress.Start(len(set), row)
			scores, err := ssnet.Evaluate(set, consensusOfNetworks(ctx, ms, d, homologs, cfg.Workers), tick)
			end()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			addRow(row, params, scores)
		}
	}
	if !cfg.Baselines {
		return report, nil
	}
	baselines := ssnet.Baselines()
	if homologs != nil {
		m, _ := ssnet.MethodNamed(ssnet.MethodConsensus)
		m.Row = "consensus (Turner 2004 ensembles of the molecule and its homologs)"
		baselines = append(baselines, m)
	}
	for _, b := range baselines {
		o := ssnet.MethodOptions{Refs: refs, Homologs: homologs, Workers: cfg.Workers}
		if b.Needs&ssnet.NeedsMFE != 0 {
			if err := attachMFE(); err != nil {
				return nil, err
			}
		}
		if b.Needs&ssnet.NeedsCentroids != 0 {
			o.Centroids = ssnet.NewCentroidCache()
			if cfg.CentroidCache != "" {
				if o.Centroids, err = ssnet.ReadCentroidCache(cfg.CentroidCache); err != nil {
					return nil, err
				}
			}
			o.Centroids.WithSeed(seed.Centroid)
		}
		if b.Needs&ssnet.NeedsMEAs != 0 {
			o.MEAs = ssnet.NewMEACache().WithSeed(seed.MEA)
		}
		if b.Needs&ssnet.NeedsRefs != 0 && sameAsTrain {
			fmt.Fprintf(log, "contactmap rna eval: no %s baseline on the training molecules themselves\n", b.Name)
			continue
		}
		name := "baseline: " + b.Row
		tick, end := cfg.Progress.Start(len(set), name)
		scores, err := ssnet.Evaluate(set, b.New(o).Predictor(), tick)
		end()
		if err != nil {
			return nil, err
		}
		addRow(name, 0, scores)
		if o.Centroids != nil && cfg.CentroidCache != "" && o.Centroids.Changed() {
			if err := o.Centroids.Write(cfg.CentroidCache); err != nil {
				return nil, err
			}
		}
	}
	return report, nil
}

// networkName names a network's rows by its record: kind, protocol and
// seed, and its ensemble channel's rule where it is not its protocol's
// (a network run under another rule is another predictor;
// experiments/rna-holdout, trial 10).
func networkName(r ssnet.Record) string {
	name := fmt.Sprintf("%s %s seed %d", r.Kind, r.Protocol, r.Seed)
	if p, err := ssnet.ProtocolByName(r.Protocol); r.Inputs2D().Ensemble && (err != nil || !(ssnet.EnsembleFold{Global: p.EnsembleGlobal}).Same(r.EnsembleFold())) {
		name += fmt.Sprintf(", ensemble global to %d nt", r.EnsembleFold().GlobalLen())
	}
	return name
}

// consensusOfNetworks is rna eval's consensus row of an ensemble ms
// under decoder d: the mean of the members' probabilities, averaged
// with the homologs' ensembles and decoded by ssnet.DecodeConsensus,
// or decoded by d where a member sees the molecule's template or it is
// over ssnet.ConsensusMaxLen (as rna predict --db predicts).
func consensusOfNetworks(ctx context.Context, ms []*ssnet.Model, d ssnet.Decoder, homologs ssnet.HomologFinder, workers int) ssnet.Predictor {
	return func(mol *ssnet.Molecule) (*rna.Structure, error) {
		qs := make([][]float32, len(ms))
		seen := false
		for k, m := range ms {
			q, err := m.ProbabilitiesFor(mol, workers)
			if err != nil {
				return nil, err
			}
			qs[k] = q
			seen = seen || ssnet.SeesTemplate(m.Record, mol.Template)
		}
		p := ssnet.MeanProbabilities(qs)
		if seen || len(mol.Seq) > ssnet.ConsensusMaxLen {
			return d.Decode(mol.Name, mol.Seq, p)
		}
		hs, err := homologs(ctx, mol.Name, mol.Seq)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mol.Name, err)
		}
		q, err := ssnet.ConsensusMap(ctx, mol.Name, mol.Seq, p, hs, workers)
		if err != nil {
			return nil, err
		}
		return ssnet.DecodeConsensus(mol.Name, mol.Seq, q)
	}
}
