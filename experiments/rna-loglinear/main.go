// Command rna-loglinear runs trial 13 of experiments/rna-holdout
// (trials.md): package rna/loglinear's model trained on split2's
// training families and scored on its held-out families.
//
//	go run ./experiments/rna-loglinear train -lambda 1e-2 -out DIR
//	go run ./experiments/rna-loglinear score -model DIR/model.txt -name LL2
//	go run ./experiments/rna-loglinear cache -model DIR/model.txt -out CACHE
//
// train writes DIR/model.txt after every evaluation that lowers the
// objective (so a run stopped at any moment leaves its best model, and
// -resume starts from it), DIR/log.tsv (one row per evaluation) and
// DIR/sample.txt (the molecules fitted). score folds every molecule of
// the scored set (global, no span limit), decodes it by rna.DecodeMEA
// gamma 1 and writes per-molecule F1 to SETS/scores-NAME.tsv in the
// format rna-holdout -paired reads (predictor NAME/mea). cache writes
// the model's pair probabilities of every molecule of -sets into an
// ssnet ensemble cache (ssnet.EnsembleCache.Put) under the zero rule and
// the global-600 rule, as the ensemble channel computes McCaskill's
// (span 200 where the rule bands, pairs under ssnet.EnsembleCut left
// out, 3 significant digits), so that a network trained and scored on
// that cache reads this model's probabilities in the channel's place
// (trial 14); resumable: the molecules already there are skipped.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/contactmap/contactmap/pairnet/memcheck"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/loglinear"
	"github.com/contactmap/contactmap/rna/ssnet"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rna-loglinear train|score|cache [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch os.Args[1] {
	case "train":
		err = train(ctx, os.Args[2:])
	case "score":
		err = score(ctx, os.Args[2:])
	case "cache":
		err = cache(ctx, os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if errors.Is(err, context.Canceled) {
		// train keeps its best model in OUT/model.txt, cache what it
		// folded; score writes nothing.
		fmt.Fprintln(os.Stderr, "rna-loglinear: interrupted")
		os.Exit(1)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rna-loglinear:", err)
		os.Exit(1)
	}
}

// readStructures reads a set of structures (ssnet.ReadSet: dot-bracket
// or the 16S five-line format, gzip or not).
func readStructures(path string) ([]*rna.Structure, error) {
	mols, err := ssnet.ReadSet(path)
	if err != nil {
		return nil, err
	}
	out := make([]*rna.Structure, len(mols))
	for k := range mols {
		out[k] = mols[k].Structure
	}
	return out, nil
}

// progressLines reports a stage of total items on standard error: a
// line at every tenth of the items and at least every 30 s, and one at
// the end. Experiments use public packages only, so it is not
// internal/progress's bar.
type progressLines struct {
	desc        string
	total, done int
	start, last time.Time
	mu          sync.Mutex
}

func newProgress(total int, desc string) *progressLines {
	t := time.Now()
	return &progressLines{desc: desc, total: total, start: t, last: t}
}

// Add counts n items done.
func (p *progressLines) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	step := max(1, p.total/10)
	before := p.done
	p.done += n
	if now := time.Now(); p.done < p.total && (p.done/step != before/step || now.Sub(p.last) >= 30*time.Second) { // the last line is Finish's
		p.last = now
		fmt.Fprintf(os.Stderr, "%s: %d/%d, %.0f s\n", p.desc, p.done, p.total, now.Sub(p.start).Seconds())
	}
}

// Finish writes the last line.
func (p *progressLines) Finish() {
	fmt.Fprintf(os.Stderr, "%s: %d/%d done in %.1f s\n", p.desc, p.done, p.total, time.Since(p.start).Seconds())
}

// each calls fn(0..n-1) on threads goroutines with progress lines
// named desc, starting nothing once ctx is done, and
// returns each index's error (nil where it succeeded or was not
// started), then ctx's error. after, if not nil, runs after each call,
// one at a time, with the count done.
func each(ctx context.Context, n, threads int, desc string, fn func(k int) error, after func(done int)) ([]error, error) {
	errs := make([]error, n)
	bar := newProgress(n, desc)
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	done := 0
	for w := 0; w < max(1, threads); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				errs[k] = fn(k)
				bar.Add(1)
				mu.Lock()
				done++
				if after != nil {
					after(done)
				}
				mu.Unlock()
			}
		}()
	}
	for k := 0; k < n && ctx.Err() == nil; k++ {
		select {
		case next <- k:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	bar.Finish()
	return errs, ctx.Err()
}

// checkMemory refuses a run whose threads folds of the longest molecule
// (need(n) bytes each) would not fit in the memory available.
func checkMemory(what string, threads, longest int, need func(n int) int64) error {
	total := int64(max(1, threads)) * need(longest)
	if lim, err := memcheck.Available(); err == nil && total > lim.Bytes {
		return fmt.Errorf("%s: %d folds of %d nt at once need about %d MiB, %d MiB available (%s): use fewer -threads or a lower -max-len",
			what, max(1, threads), longest, total>>20, lim.Bytes>>20, lim.Source)
	}
	return nil
}

func train(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("train", flag.ExitOnError)
	set := fs.String("set", "experiments/rna-holdout/split2/train.dbn.gz", "training structures")
	minLen := fs.Int("min-len", 40, "shortest molecule fitted")
	maxLen := fs.Int("max-len", 200, "longest molecule fitted")
	sample := fs.Int("sample", 1000, "molecules drawn (seed -seed) from those that qualify")
	seed := fs.Uint64("seed", 1, "sample seed")
	lambda := fs.Float64("lambda", 1e-2, "L2 weight")
	evals := fs.Int("max-evals", 150, "objective evaluations, at most")
	threads := fs.Int("threads", 1, "goroutines")
	out := fs.String("out", "", "output directory")
	resume := fs.Bool("resume", false, "start from OUT/model.txt")
	fs.Parse(args)
	if *out == "" {
		return errors.New("train: -out is required")
	}
	all, err := readStructures(*set)
	if err != nil {
		return err
	}
	var ok []*rna.Structure
	var skipped, dropped, shortLong int
	for _, s := range all {
		if len(s.Seq) < *minLen || len(s.Seq) > *maxLen {
			shortLong++
			continue
		}
		r, d, err := loglinear.Representable(s)
		if err != nil {
			skipped++
			continue
		}
		dropped += d
		ok = append(ok, r)
	}
	rng := rand.New(rand.NewPCG(*seed, 13))
	rng.Shuffle(len(ok), func(i, j int) { ok[i], ok[j] = ok[j], ok[i] })
	ok = ok[:min(*sample, len(ok))]
	sort.Slice(ok, func(i, j int) bool { return ok[i].Name < ok[j].Name })
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var names []byte
	for _, s := range ok {
		names = append(names, s.Name+"\n"...)
	}
	if err := os.WriteFile(filepath.Join(*out, "sample.txt"), names, 0o644); err != nil {
		return err
	}
	fmt.Printf("%d molecules in %s; %d outside %d-%d nt; %d outside the model (an interior loop over %d); %d pairs dropped (non-canonical, crossing, short hairpins); %d drawn\n",
		len(all), *set, shortLong, *minLen, *maxLen, skipped, loglinear.MaxLoop, dropped, len(ok))
	var init *loglinear.Model
	modelPath := filepath.Join(*out, "model.txt")
	if *resume {
		if init, err = readModel(modelPath); err != nil {
			return err
		}
	}
	logf, err := os.OpenFile(filepath.Join(*out, "log.tsv"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "# %s lambda %g sample %d resume %v\nevaluation\tobjective\tgradient_norm\tseconds\n", time.Now().UTC().Format(time.RFC3339), *lambda, len(ok), *resume)
	longest := 0
	for _, s := range ok {
		longest = max(longest, len(s.Seq))
	}
	if err := checkMemory("train", *threads, longest, func(n int) int64 { return loglinear.MemoryBytes(n, 0) }); err != nil {
		return err
	}
	start := time.Now()
	best := 1e300
	bar := newProgress(*evals, "objective evaluations")
	m, res, err := loglinear.Train(ctx, ok, loglinear.TrainOptions{
		Lambda: *lambda, MaxEvals: *evals, Threads: *threads, Init: init,
		Progress: func(e int, v, g float64) {
			fmt.Fprintf(logf, "%d\t%.6f\t%.6g\t%.1f\n", e, v, g, time.Since(start).Seconds())
			bar.Add(1) // the objective of each is in log.tsv
		},
		Checkpoint: func(m *loglinear.Model, v float64) {
			if v < best {
				best = v
				if err := writeModel(modelPath, m); err != nil {
					fmt.Fprintln(os.Stderr, "checkpoint:", err)
				}
			}
		},
	})
	bar.Finish()
	if err != nil {
		return err // the best model so far is in model.txt (Checkpoint)
	}
	if err := writeModel(modelPath, m); err != nil {
		return err
	}
	fmt.Printf("trained: %d evaluations, objective %.6f, gradient norm %.3g, %s, %.0f s\n", res.Evaluations, res.Value, res.GradNorm, res.Status, time.Since(start).Seconds())
	return nil
}

func readModel(path string) (*loglinear.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := loglinear.ReadModel(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func writeModel(path string, m *loglinear.Model) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := loglinear.WriteModel(f, m); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func score(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("score", flag.ExitOnError)
	modelPath := fs.String("model", "", "model file")
	name := fs.String("name", "LL", "predictor name")
	sets := fs.String("sets", "experiments/rna-holdout/split2", "directory of the scored set; scores-NAME.tsv is written here")
	scored := fs.String("scored", "valid.dbn.gz", "the scored set, a file in -sets")
	maxLen := fs.Int("max-len", 600, "longest molecule scored (rna-holdout -baselines' rule)")
	threads := fs.Int("threads", 2, "molecules at once")
	gamma := fs.Float64("gamma", 1, "MEA gamma (trial 13's decoder: 1)")
	outDir := fs.String("out", "", "directory of scores-NAME.tsv (default: -sets)")
	namesFile := fs.String("names", "", "score only the molecules named in this file, one per line (a training run's sample.txt: the trial 13 diagnostic)")
	turner := fs.Bool("turner", false, "score the Turner 2004 ensemble (McCaskill's probabilities, rna/fold, global) instead of -model: the model-free row of trial 13b")
	fs.Parse(args)
	var m *loglinear.Model
	var err error
	if !*turner {
		if m, err = readModel(*modelPath); err != nil {
			return err
		}
	}
	all, err := readStructures(filepath.Join(*sets, *scored))
	if err != nil {
		return err
	}
	var only map[string]bool
	if *namesFile != "" {
		raw, err := os.ReadFile(*namesFile)
		if err != nil {
			return err
		}
		only = map[string]bool{}
		for _, n := range strings.Fields(string(raw)) {
			only[n] = true
		}
	}
	var mols []*rna.Structure
	for _, s := range all {
		if len(s.Seq) <= *maxLen && (only == nil || only[s.Name]) {
			mols = append(mols, s)
		}
	}
	if only != nil && len(mols) != len(only) {
		return fmt.Errorf("score: %d of the %d molecules named in %s are in %s (of at most %d nt)", len(mols), len(only), *namesFile, *scored, *maxLen)
	}
	longest := 0
	for _, s := range mols {
		longest = max(longest, len(s.Seq))
	}
	need := func(n int) int64 { return loglinear.MemoryBytes(n, 0) + 4*int64(n)*int64(n) }
	if *turner {
		need = func(n int) int64 { return fold.MemoryEstimate(fold.MethodPartition, n, 0) + 4*int64(n)*int64(n) }
	}
	if err := checkMemory("score", *threads, longest, need); err != nil {
		return err
	}
	rows := make([]string, len(mols))
	f1s := make([]float64, len(mols))
	var sumF1 float64
	start := time.Now()
	errs, err := each(ctx, len(mols), *threads, *name, func(k int) error {
		s := mols[k]
		var probs []float32
		if *turner {
			e, err := fold.DefaultParams().PartitionContext(ctx, s.Seq, 1)
			if err != nil {
				return fmt.Errorf("%s: %w", s.Name, err)
			}
			probs = e.Probabilities()
		} else {
			e, err := m.Fold(ctx, s.Seq, 0)
			if err != nil {
				return fmt.Errorf("%s: %w", s.Name, err)
			}
			probs = e.Probabilities()
		}
		pred, err := rna.DecodeMEA(s.Name, s.Seq, probs, rna.DecodeOptions{Gamma: *gamma})
		if err != nil {
			return err
		}
		ex, sh := rna.Compare(pred, s, false), rna.Compare(pred, s, true)
		f1s[k] = ex.F1
		rows[k] = fmt.Sprintf("%s/mea\t%s\t%d\t%.6f\t%.6f\t%.6f", *name, s.Name, len(s.Seq), ex.F1, ex.MCC, sh.F1)
		return nil
	}, nil)
	if err != nil {
		return err
	}
	var b []byte
	b = append(b, "predictor\tname\tlength\tf1\tmcc\tf1_slip\n"...)
	n := 0
	for k, r := range rows {
		if errs[k] != nil {
			fmt.Fprintln(os.Stderr, "skipped:", errs[k])
			continue
		}
		b = append(b, r+"\n"...)
		sumF1 += f1s[k]
		n++
	}
	dir := *outDir
	if dir == "" {
		dir = *sets
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	out := filepath.Join(dir, "scores-"+*name+".tsv")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d of %d molecules, mean F1 (MEA gamma %g) %.4f, %.0f s; %s\n", *name, n, len(mols), *gamma, sumF1/float64(max(1, n)), time.Since(start).Seconds(), out)
	if n < len(mols) {
		return fmt.Errorf("%d molecules skipped", len(mols)-n)
	}
	return nil
}

func cache(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("cache", flag.ExitOnError)
	modelPath := fs.String("model", "", "model file")
	out := fs.String("out", "", "cache file (appended)")
	sets := fs.String("sets", "data/rna/16s-finaltrain.txt,data/rna/16s-finalvalid.txt,experiments/rna-holdout/split2/train.dbn.gz,experiments/rna-holdout/split2/valid.dbn.gz", "sets whose molecules are computed, comma-separated")
	threads := fs.Int("threads", 2, "molecules at once")
	fs.Parse(args)
	if *out == "" {
		return errors.New("cache: -out is required")
	}
	if abs, err := filepath.Abs(*out); err == nil {
		if def, err := filepath.Abs(ssnet.DefaultEnsembleCache()); err == nil && abs == def {
			return fmt.Errorf("cache: -out %s is the McCaskill cache rna train and rna predict read", *out)
		}
	}
	m, err := readModel(*modelPath)
	if err != nil {
		return err
	}
	// The cache's entries are keyed as McCaskill's: a sidecar names the
	// model they came from, and a cache of another model (or of none) is
	// refused.
	raw, err := os.ReadFile(*modelPath)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	id := hex.EncodeToString(sum[:]) + "\n"
	side := *out + ".model"
	if prev, err := os.ReadFile(side); err == nil {
		if string(prev) != id {
			return fmt.Errorf("cache: %s holds another model's entries (%s)", *out, side)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cache: %w", err)
	} else if _, err := os.Stat(*out); err == nil {
		return fmt.Errorf("cache: %s exists without %s: not this model's cache", *out, side)
	} else if err := os.WriteFile(side, []byte(id), 0o644); err != nil {
		return err
	}
	c, err := ssnet.ReadEnsembleCache(*out)
	if err != nil {
		return err
	}
	mols, err := ssnet.ReadSets(strings.Split(*sets, ","))
	if err != nil {
		return err
	}
	rules := []ssnet.EnsembleFold{{}, {Global: 600}}
	type job struct {
		seq  string
		rule ssnet.EnsembleFold
	}
	seen := map[string]bool{}
	var jobs []job
	for _, mol := range mols {
		for _, r := range rules {
			k := fmt.Sprint(r.Span(len(mol.Seq)), mol.Seq) // the span decides the fold and the key
			if seen[k] {
				continue
			}
			seen[k] = true
			if c.Has(r, mol.Seq) {
				continue
			}
			jobs = append(jobs, job{mol.Seq, r})
		}
	}
	fmt.Printf("%d molecules, %d entries to compute\n", len(mols), len(jobs))
	longest := 0
	for _, j := range jobs {
		longest = max(longest, len(j.seq))
	}
	span := func(n int) int { return ssnet.EnsembleFold{}.Span(n) } // the band of both rules past 600 nt
	if err := checkMemory("cache", *threads, longest, func(n int) int64 { return loglinear.MemoryBytes(n, span(n)) }); err != nil {
		return err
	}
	start := time.Now()
	var appendErr error
	errs, err := each(ctx, len(jobs), *threads, "pair probabilities", func(k int) error {
		j := jobs[k]
		ens, err := m.Fold(ctx, j.seq, j.rule.Span(len(j.seq)))
		if err != nil {
			return err
		}
		var ps []ssnet.PairProb
		for _, p := range ens.Pairs(ssnet.EnsembleCut) {
			ps = append(ps, ssnet.PairProb{I: int32(p.I), J: int32(p.J), P: ssnet.RoundProb(p.P)})
		}
		return c.Put(j.rule, j.seq, ps)
	}, func(done int) {
		if done%500 == 0 && appendErr == nil {
			appendErr = c.Append(*out) // what is folded survives a stop
		}
	})
	if e := c.Append(*out); appendErr == nil {
		appendErr = e
	}
	if appendErr != nil {
		return appendErr
	}
	if err != nil {
		return err
	}
	failed := 0
	for k, e := range errs {
		if e != nil {
			fmt.Fprintf(os.Stderr, "skipped: %d nt: %v\n", len(jobs[k].seq), e)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d entries failed", failed, len(jobs))
	}
	done := len(jobs)
	fmt.Printf("%d entries computed, %.0f s\n", done, time.Since(start).Seconds())
	return nil
}
