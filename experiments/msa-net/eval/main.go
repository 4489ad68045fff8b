// Command eval scores the MSA networks of experiments/msa-net (issue 31,
// part 3) on a split of the family set, beside every model-free method
// the issue asks for, family by family:
//
//   - the networks: every run directory <kind>-seed<N>/model.scnn under
//     -runs, each seed alone, and the seed ensemble of each kind (the mean
//     of its seeds' probabilities), on the feature directory whose mode
//     the model was trained on (msa+plm: -plm, msa: -mf);
//   - plmDCA: the co-evolution channel of the -plm features (package
//     potts' APC-corrected Frobenius norms, z-scored; no training);
//   - mean-field DCA: the same channel of the -mf features;
//   - freecontact's EVfold (mean-field DCA) and PSICOV modes on the same
//     alignment (package experiments/internal/freecontact; outputs cached in -cache);
//   - the shipped single-sequence ensemble on the -seq features;
//   - -|i-j|: pairs ranked by sequence separation, nearest first.
//
// Metrics: top-L/k precision by separation range of C-beta contacts under
// 8 Å (package metrics, the labels of the feature files). The model-free
// scores are defined on the alignment's query columns; a chain residue
// outside the query (Pfam queries cover their domain) ranks its pairs
// last for those methods. Paired comparisons (package compare: per family
// the mean over seeds, percentile bootstrap over families) put each
// network kind and its ensemble against plmDCA, SCNN against CNN, and
// plmDCA against freecontact's two modes and mean-field DCA.
//
// freecontact's PSICOV mode takes from seconds to hours of CPU a family.
// -fill only fills the cache, shortest query first, each run bounded by
// -limit; a family stopped at the limit is marked in the cache and run
// again only under a longer limit. A report made with -limit leaves such
// families out of that method's row and of its paired comparisons
// (compared on the families both sides have), and says which; so does a
// report made with -cached, which runs no freecontact and leaves out the
// families the cache has no finished run of.
//
//	go run ./experiments/msa-net/eval -split validation -out experiments/msa-net/report-validation
//	go run ./experiments/msa-net/eval -split all -runs '' -out experiments/msa-net/baselines-all
//	go run ./experiments/msa-net/eval -split all -runs '' -freecontact psicov -threads 1 -limit 30m -fill
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/contactmap/contactmap/experiments/internal/shellquote"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/contactmap/contactmap/experiments/internal/freecontact"
	"github.com/contactmap/contactmap/experiments/internal/resultfile"
	"github.com/contactmap/contactmap/models"
	"github.com/contactmap/contactmap/pipeline/compare"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/train"
	"github.com/contactmap/contactmap/scnn"
)

func main() {
	var c config
	flag.StringVar(&c.plm, "plm", "features-families", "features with the plmDCA channel (make features-families)")
	flag.StringVar(&c.mf, "mf", "features-families-mf", "features with the mean-field DCA channel (make features-families-mf)")
	flag.StringVar(&c.seq, "seq", "features-families-seq", "sequence-only features (make features-families-seq); '' leaves out the single-sequence ensemble")
	flag.StringVar(&c.msa, "msa", "experiments/msa-net/sets/msa", "the families' alignments, by chain ID")
	flag.StringVar(&c.runs, "runs", "experiments/msa-net/runs", "run directories <kind>-seed<N>; '' for the model-free rows only")
	flag.StringVar(&c.split, "split", "validation", "train, validation, test or all")
	flag.StringVar(&c.cache, "cache", "experiments/msa-net/freecontact-cache", "freecontact outputs")
	flag.StringVar(&c.out, "out", "", "write OUT.md and OUT.json")
	flag.IntVar(&c.resamples, "resamples", 10000, "bootstrap resamples over families")
	flag.IntVar(&c.threads, "threads", 2, "freecontact threads")
	flag.IntVar(&c.maxSeed, "max-seed", 0, "only runs of seeds up to this (0: every run)")
	flag.StringVar(&c.profiles, "freecontact", "evfold,psicov", "freecontact profiles run (comma-separated from evfold, psicov, psicov-sd; '' for none): psicov, the published PSICOV, takes minutes of CPU per family; psicov-sd is one fit at rho 0.001")
	flag.DurationVar(&c.limit, "limit", 0, "wall-time limit of one freecontact run (0: none); a family stopped there is left out of that method's row")
	flag.BoolVar(&c.cached, "cached", false, "run no freecontact: families without a finished run in -cache are left out of that method's row")
	flag.BoolVar(&c.fill, "fill", false, "only run freecontact where the cache lacks it, shortest query first, and write no report")
	flag.StringVar(&c.pick, "pick", "", "the candidate picked on validation (e.g. 'scnn seed 2'): the report compares it with plmDCA instead of applying the pick rule to this split")
	flag.Parse()
	log.SetFlags(0)
	if c.out == "" {
		c.out = "experiments/msa-net/report-" + c.split
	}
	for _, p := range strings.Split(c.profiles, ",") {
		if p != "" && !slices.Contains(freecontact.Known, p) {
			log.Fatalf("msa-net eval: -freecontact: unknown profile %q (one of %s)", p, strings.Join(freecontact.Known, ", "))
		}
	}
	if c.fill && c.cached {
		log.Fatal("msa-net eval: -fill runs freecontact, -cached runs none: give one")
	}
	if err := run(c); err != nil {
		log.Fatal("msa-net eval: ", err)
	}
}

type config struct {
	plm, mf, seq, msa, runs, split, cache, out string
	profiles                                   string
	pick                                       string
	resamples, threads, maxSeed                int
	limit                                      time.Duration
	fill, cached                               bool
}

// The model-free predictors' kinds.
const (
	kindPlm    = "plmDCA"
	kindMF     = "mean-field DCA"
	kindEVfold = "freecontact EVfold"
	kindPSICOV = "freecontact PSICOV"
	kindPSISD  = "freecontact PSICOV rho 0.001"
	kindSeq    = "single-sequence ensemble"
	kindSep    = "-|i-j|"
)

// family is one chain of the split with its three feature files.
type family struct {
	plm, mf, seq *model.Sample
	aln          *msa.Alignment
	pairs        [][2]int // chain position, query column
}

// rowStrings is an alignment's rows as freecontact takes them.
func rowStrings(a *msa.Alignment) []string {
	rows := make([]string, a.N())
	for k, r := range a.Rows {
		rows[k] = string(r)
	}
	return rows
}

func run(c config) error {
	plm, _, err := train.LoadSplit(c.plm, c.split)
	if err != nil {
		return err
	}
	mf, err := byID(c.mf, c.split)
	if err != nil {
		return err
	}
	var seq map[string]*model.Sample
	if c.seq != "" {
		if seq, err = byID(c.seq, c.split); err != nil {
			return err
		}
	}
	var fams []*family
	for _, s := range plm {
		f := &family{plm: s, mf: mf[s.ID], seq: seq[s.ID]}
		if f.mf == nil || (seq != nil && f.seq == nil) {
			return fmt.Errorf("%s: in %s, not in %s or %s", s.ID, c.plm, c.mf, c.seq)
		}
		for _, o := range []*model.Sample{f.mf, f.seq} {
			if o != nil && !sameLabels(s, o) {
				return fmt.Errorf("%s: the contact labels of %s differ between the feature directories", s.ID, s.ID)
			}
		}
		path := features.FindMSA(c.msa, s.ID)
		if path == "" {
			return fmt.Errorf("%s: no alignment in %s", s.ID, c.msa)
		}
		if f.aln, err = features.ReadAlignment(path); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if f.pairs, err = features.QueryPairs(s.Seq, f.aln); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		fams = append(fams, f)
	}
	if len(fams) == 0 {
		return fmt.Errorf("%s: no chains in the %s split", c.plm, c.split)
	}
	log.Printf("%d families of the %s split", len(fams), c.split)

	if c.fill {
		return fill(c, fams)
	}

	var runs []compare.Run
	free := func(kind string, score func(f *family) []float32) {
		var ms []metrics.ChainMetrics
		for _, f := range fams {
			ms = append(ms, metrics.Evaluate(f.plm.ID, score(f), f.plm.Labels))
		}
		runs = append(runs, compare.ChainRun(compare.Run{Kind: kind, Seed: 1}, ms))
	}
	free(kindPlm, func(f *family) []float32 { return channel(f, f.plm) })
	free(kindMF, func(f *family) []float32 { return channel(f, f.mf) })
	stopped := map[string][]string{} // kind -> families stopped at the limit
	for _, prof := range freecontact.Known {
		if !slices.Contains(strings.Split(c.profiles, ","), prof) {
			continue
		}
		kind := map[string]string{"evfold": kindEVfold, "psicov": kindPSICOV, "psicov-sd": kindPSISD}[prof]
		var ferr error
		free(kind, func(f *family) []float32 {
			var s []float64
			var err error
			if c.cached {
				s, _, err = freecontact.Stored(c.cache, f.plm.ID, len(f.aln.Query()), prof)
			} else {
				s, _, err = freecontact.Cached(c.cache, f.plm.ID, rowStrings(f.aln), prof, c.threads, c.limit)
			}
			if errors.Is(err, freecontact.ErrTimeLimit) || errors.Is(err, freecontact.ErrNotCached) {
				stopped[kind] = append(stopped[kind], f.plm.ID)
				log.Printf("%s: %v", f.plm.ID, err)
				return filled(f.plm.L())
			}
			if err != nil {
				ferr = errors.Join(ferr, fmt.Errorf("%s: %w", f.plm.ID, err))
				return filled(f.plm.L())
			}
			return mapQuery(f, s)
		})
		if ferr != nil {
			return ferr
		}
		if out := stopped[kind]; len(out) == len(fams) {
			log.Printf("%s: no family has a finished run; the method is left out", kind)
			runs = runs[:len(runs)-1]
		} else if len(out) > 0 {
			keep := map[string]bool{}
			for _, f := range fams {
				keep[f.plm.ID] = !slices.Contains(out, f.plm.ID)
			}
			runs[len(runs)-1] = compare.OnlyItems(runs[len(runs)-1:], keep)[0]
		}
	}
	free(kindSep, func(f *family) []float32 {
		l := f.plm.L()
		p := make([]float32, l*l)
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				p[i*l+j] = -float32(max(i-j, j-i))
			}
		}
		return p
	})
	if seq != nil {
		members, from, err := models.Load("ensemble")
		if err != nil {
			return err
		}
		ms, err := singleSequence(members, fams)
		if err != nil {
			return fmt.Errorf("%s: %w", from, err)
		}
		runs = append(runs, compare.ChainRun(compare.Run{Kind: kindSeq, Seed: 1}, ms))
	}
	nets, err := networks(c, fams)
	if err != nil {
		return err
	}
	runs = append(runs, nets...)
	return report(c, fams, runs, stopped)
}

// fill runs freecontact's profiles on every family whose output the cache
// lacks, shortest query first, each under c.limit, and logs each run.
func fill(c config, fams []*family) error {
	fams = slices.Clone(fams)
	slices.SortStableFunc(fams, func(a, b *family) int { return len(a.aln.Query()) - len(b.aln.Query()) })
	var errs []error
	for _, prof := range strings.Split(c.profiles, ",") {
		if prof == "" {
			continue
		}
		var ran, stopped int
		for _, f := range fams {
			_, d, err := freecontact.Cached(c.cache, f.plm.ID, rowStrings(f.aln), prof, c.threads, c.limit)
			switch {
			case errors.Is(err, freecontact.ErrTimeLimit):
				stopped++
				log.Printf("%s %s (query %d columns): %v", prof, f.plm.ID, len(f.aln.Query()), err)
			case err != nil:
				errs = append(errs, fmt.Errorf("%s %s: %w", prof, f.plm.ID, err))
				log.Printf("%s %s: %v", prof, f.plm.ID, err)
			default:
				ran++
				log.Printf("%s %s (query %d columns): %.1f s", prof, f.plm.ID, len(f.aln.Query()), d.Seconds())
			}
		}
		log.Printf("%s: %d of %d families in the cache, %d stopped at the limit", prof, ran, len(fams), stopped)
	}
	return errors.Join(errs...)
}

func byID(dir, split string) (map[string]*model.Sample, error) {
	ss, _, err := train.LoadSplit(dir, split)
	if err != nil {
		return nil, err
	}
	m := map[string]*model.Sample{}
	for _, s := range ss {
		m[s.ID] = s
	}
	return m, nil
}

func sameLabels(a, b *model.Sample) bool {
	return a.Labels != nil && b.Labels != nil && a.Labels.Def == b.Labels.Def &&
		slices.Equal(a.Labels.Contact, b.Labels.Contact) && slices.Equal(a.Labels.Known, b.Labels.Known)
}

// outside is the score of a pair with a residue outside the query: below
// every score a method gives.
const outside = -math.MaxFloat32

// channel is the co-evolution channel (2D channel 0) of s at the pairs of
// query columns, outside elsewhere.
func channel(f *family, s *model.Sample) []float32 {
	l := s.L()
	p := filled(l)
	for _, pi := range f.pairs {
		for _, pj := range f.pairs {
			if i, j := pi[0], pj[0]; i < j {
				v := s.TwoD[scnn.PackedIndex(l, i, j)*features.N2D]
				p[i*l+j], p[j*l+i] = v, v
			}
		}
	}
	return p
}

// mapQuery places a score map over the query's columns (lq x lq) on the
// chain's pairs.
func mapQuery(f *family, s []float64) []float32 {
	l, lq := f.plm.L(), len(f.aln.Query())
	p := filled(l)
	for _, pi := range f.pairs {
		for _, pj := range f.pairs {
			p[pi[0]*l+pj[0]] = float32(s[pi[1]*lq+pj[1]])
		}
	}
	return p
}

func filled(l int) []float32 {
	p := make([]float32, l*l)
	for k := range p {
		p[k] = outside
	}
	return p
}

// singleSequence scores the shipped ensemble on the sequence-only
// features. Its members may have been trained on another contact
// definition than the families' C-beta labels; they are asked for their
// contact probabilities, which are scored against the families' labels.
func singleSequence(members []*model.Model, fams []*family) ([]metrics.ChainMetrics, error) {
	samples := make([]*model.Sample, len(fams))
	for k, f := range fams {
		cp := *f.seq.Chain
		lab := *cp.Labels
		lab.Def = members[0].Arch.Labels
		cp.Labels = &lab
		samples[k] = &model.Sample{ID: f.seq.ID, Split: f.seq.Split, Chain: &cp}
	}
	// The metrics read the labels' pairs, not their definition.
	return train.EvaluateEnsemble(members, samples, 4)
}

var runName = regexp.MustCompile(`^([a-z0-9-]+)-seed([0-9]+)$`)

// networks evaluates every finished run under c.runs (each seed, then
// each kind's seed ensemble, kind "<kind> ensemble" with seed 1).
func networks(c config, fams []*family) ([]compare.Run, error) {
	if c.runs == "" {
		return nil, nil
	}
	dirs, err := os.ReadDir(c.runs)
	if err != nil {
		return nil, err
	}
	members := map[string][]*model.Model{}
	var runs []compare.Run
	for _, d := range dirs {
		m := runName.FindStringSubmatch(d.Name())
		if !d.IsDir() || m == nil {
			continue
		}
		seed, _ := strconv.Atoi(m[2])
		if c.maxSeed > 0 && seed > c.maxSeed {
			continue
		}
		path := filepath.Join(c.runs, d.Name(), "model.scnn")
		if _, err := os.Stat(path); err != nil {
			log.Printf("%s: no model.scnn (still training?), left out", filepath.Join(c.runs, d.Name()))
			continue
		}
		net, err := model.LoadModel(path)
		if err != nil {
			return nil, err
		}
		samples, err := inputs(net, fams)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		ms, err := train.EvaluateChains(net, samples, 4)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		epochs, secs := train.RunInfo(path)
		runs = append(runs, compare.ChainRun(compare.Run{Kind: m[1], Seed: seed, Params: net.Trainable(), Epochs: epochs, TrainSec: secs}, ms))
		members[m[1]] = append(members[m[1]], net)
	}
	kinds := make([]string, 0, len(members))
	for k := range members {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		if len(members[k]) < 2 {
			continue
		}
		samples, err := inputs(members[k][0], fams)
		if err != nil {
			return nil, err
		}
		ms, err := train.EvaluateEnsemble(members[k], samples, 4)
		if err != nil {
			return nil, fmt.Errorf("%s ensemble: %w", k, err)
		}
		runs = append(runs, compare.ChainRun(compare.Run{Kind: k + " ensemble", Seed: 1, Params: members[k][0].Trainable() * len(members[k])}, ms))
	}
	return runs, nil
}

// inputs are the families' samples in the feature mode net was trained on.
func inputs(net *model.Model, fams []*family) ([]*model.Sample, error) {
	var out []*model.Sample
	for _, f := range fams {
		switch net.Arch.Mode {
		case f.plm.Mode():
			out = append(out, f.plm)
		case f.mf.Mode():
			out = append(out, f.mf)
		default:
			return nil, fmt.Errorf("trained on %s features; the family features are %s and %s", net.Arch.Mode, f.plm.Mode(), f.mf.Mode())
		}
	}
	return out, nil
}

// The metrics reported: the ranking metrics (model-free scores are no
// probabilities).
var reported = []string{"long top-L/5", "long top-L/2", "long top-L/1", "medium top-L/5", "short top-L/5"}

func report(c config, fams []*family, runs []compare.Run, stopped map[string][]string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# MSA networks and model-free methods: %s split, %d families\n\n", c.split, len(fams))
	fmt.Fprintf(&b, "`go run ./experiments/msa-net/eval %s`\n\n", shellquote.Join(os.Args[1:]))
	fmt.Fprintf(&b, "C-beta contacts under 8 Å; precision of the top L/k pairs by separation (long >= 24, medium 12-23, short 6-11), the mean over families; for networks the mean over seeds ± their standard deviation (n-1), with the seeds' count.\n\n")
	b.WriteString("| predictor | seeds | " + strings.Join(reported, " | ") + " |\n|---|---:|" + strings.Repeat("---:|", len(reported)) + "\n")
	kinds := []string{}
	byKind := map[string][]compare.Run{}
	for _, r := range runs {
		if byKind[r.Kind] == nil {
			kinds = append(kinds, r.Kind)
		}
		byKind[r.Kind] = append(byKind[r.Kind], r)
	}
	for _, k := range kinds {
		rs := byKind[k]
		name := k
		if n := len(stopped[k]); n > 0 {
			name = fmt.Sprintf("%s (%d of %d families)", k, len(fams)-n, len(fams))
		}
		fmt.Fprintf(&b, "| %s | %d |", name, len(rs))
		for _, m := range reported {
			var per []float64
			for _, r := range rs {
				per = append(per, mean(r.Scores[m]))
			}
			mu, sd := meanSD(per)
			if len(per) > 1 {
				fmt.Fprintf(&b, " %.3f ± %.3f |", mu, sd)
			} else {
				fmt.Fprintf(&b, " %.3f |", mu)
			}
		}
		b.WriteString("\n")
	}
	for _, k := range kinds {
		if out := stopped[k]; len(out) > 0 {
			why := fmt.Sprintf("stopped at the %s limit of a run", c.limit)
			if c.cached {
				why = "without a finished run in the cache (stopped at a time limit, or not run yet)"
			}
			fmt.Fprintf(&b, "\n%s: %d families %s, left out of its row and its comparisons: %s.\n", k, len(out), why, strings.Join(out, ", "))
		}
	}
	b.WriteString("\n## Paired comparisons\n\nEach: B minus A on the families, per family the mean over B's seeds (a model-free A repeats its one score for each seed), 95% percentile bootstrap interval over families; \"seeds B > A\" counts the seeds whose mean is above A's.\n\n")
	var pairs [][2]string
	for _, k := range kinds {
		if k != kindPlm && !isFree(k) {
			pairs = append(pairs, [2]string{kindPlm, k})
		}
	}
	if byKind["scnn"] != nil && byKind["cnn"] != nil {
		pairs = append(pairs, [2]string{"cnn", "scnn"})
	}
	if byKind["scnn ensemble"] != nil && byKind["cnn ensemble"] != nil {
		pairs = append(pairs, [2]string{"cnn ensemble", "scnn ensemble"})
	}
	for _, k := range []string{kindEVfold, kindPSICOV, kindPSISD, kindMF} {
		if byKind[k] != nil {
			pairs = append(pairs, [2]string{k, kindPlm})
		}
	}
	var results []*compare.Result
	for _, p := range pairs {
		res, err := compare.Compare(common(paired(byKind, p[0], p[1])), reported[:3], p[0], p[1], c.resamples, 1)
		if err != nil {
			return fmt.Errorf("%s vs %s: %w", p[1], p[0], err)
		}
		res.Unit, res.Split, res.Features = "families", c.split, c.plm
		fmt.Fprintf(&b, "### %s vs %s\n\n", p[1], p[0])
		if err := res.Markdown(&b); err != nil {
			return err
		}
		b.WriteString("\n")
		results = append(results, res)
	}
	p, ok, err := pick(runs, c.pick)
	if err != nil {
		return err
	}
	if ok {
		if c.pick != "" {
			fmt.Fprintf(&b, "## The pick made on validation (pick.md), on this split\n\n%s\n\n", p.text)
		} else {
			fmt.Fprintf(&b, "## The pick rule applied to this split (README; the pick itself is made on validation, pick.md)\n\n%s\n\n", p.text)
		}
		// The pick alone against plmDCA (the README's rule for the default
		// of alignment files).
		r := p.run
		r.Kind, r.Seed = "pick: "+p.name, 1
		res, err := compare.Compare(common([]compare.Run{byKind[kindPlm][0], r}), reported[:3], kindPlm, r.Kind, c.resamples, 1)
		if err != nil {
			return err
		}
		res.Unit, res.Split, res.Features = "families", c.split, c.plm
		fmt.Fprintf(&b, "### %s vs plmDCA\n\n", r.Kind)
		if err := res.Markdown(&b); err != nil {
			return err
		}
		b.WriteString("\n")
		results = append(results, res)
	}
	b.WriteString("## Per family (long-range top-L/5)\n\n| family | L | " + strings.Join(kinds, " | ") + " |\n|---|---:|" + strings.Repeat("---:|", len(kinds)) + "\n")
	for _, f := range fams {
		fmt.Fprintf(&b, "| %s | %d |", f.plm.ID, f.plm.L())
		for _, k := range kinds {
			var v float64
			for _, r := range byKind[k] {
				at := slices.Index(r.Items, f.plm.ID)
				if at < 0 {
					v = math.NaN()
					break
				}
				v += r.Scores["long top-L/5"][at] / float64(len(byKind[k]))
			}
			if math.IsNaN(v) {
				b.WriteString(" - |")
			} else {
				fmt.Fprintf(&b, " %.3f |", v)
			}
		}
		b.WriteString("\n")
	}
	os.Stdout.WriteString(b.String())
	if err := os.MkdirAll(filepath.Dir(c.out), 0o755); err != nil {
		return err
	}
	if err := resultfile.Write(c.out+".md", func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	}); err != nil {
		return err
	}
	return resultfile.Write(c.out+".json", func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(struct {
			Split       string            `json:"split"`
			Runs        []compare.Run     `json:"runs"`
			Comparisons []*compare.Result `json:"comparisons"`
		}{c.split, runs, results})
	})
}

// pick applies the selection rule of the README to the network runs:
// the highest mean long-range top-L/5 among the single seeds of scnn and
// cnn and their two seed ensembles; within 0.005 of the best, a single
// model before an ensemble, SCNN before CNN, then the higher score.
// picked is the candidate the rule picked: its name, its run and the
// rule's account of the candidates.
type picked struct {
	name, text string
	run        compare.Run
}

// fixed, where not "", names the candidate picked already (on
// validation): it is the one returned, whatever this split's scores.
func pick(runs []compare.Run, fixed string) (picked, bool, error) {
	type cand struct {
		name             string
		score            float64
		ensemble, isSCNN bool
		run              compare.Run
	}
	var cs []cand
	for _, r := range runs {
		switch r.Kind {
		case "scnn", "cnn":
			cs = append(cs, cand{fmt.Sprintf("%s seed %d", r.Kind, r.Seed), mean(r.Scores["long top-L/5"]), false, r.Kind == "scnn", r})
		case "scnn ensemble", "cnn ensemble":
			cs = append(cs, cand{r.Kind, mean(r.Scores["long top-L/5"]), true, r.Kind == "scnn ensemble", r})
		}
	}
	if len(cs) == 0 {
		return picked{}, false, nil
	}
	var lines []string
	for _, c := range cs {
		lines = append(lines, fmt.Sprintf("%s %.3f", c.name, c.score))
	}
	if fixed != "" {
		i := slices.IndexFunc(cs, func(c cand) bool { return c.name == fixed })
		if i < 0 {
			return picked{}, false, fmt.Errorf("-pick %q: not among the candidates (%s)", fixed, strings.Join(lines, ", "))
		}
		text := fmt.Sprintf("Candidates (long-range top-L/5): %s. **The pick made on validation: %s** (%.3f here).", strings.Join(lines, ", "), fixed, cs[i].score)
		return picked{name: fixed, text: text, run: cs[i].run}, true, nil
	}
	best := slices.MaxFunc(cs, func(a, b cand) int { return cmpFloat(a.score, b.score) })
	var near []cand
	for _, c := range cs {
		if c.score >= best.score-0.005 {
			near = append(near, c)
		}
	}
	slices.SortStableFunc(near, func(a, b cand) int {
		switch {
		case a.ensemble != b.ensemble:
			if !a.ensemble {
				return -1
			}
			return 1
		case a.isSCNN != b.isSCNN:
			if a.isSCNN {
				return -1
			}
			return 1
		}
		return cmpFloat(b.score, a.score)
	})
	text := fmt.Sprintf("Candidates (long-range top-L/5): %s. Best %s (%.3f); within 0.005 of it: %d. **Pick: %s** (%.3f).",
		strings.Join(lines, ", "), best.name, best.score, len(near), near[0].name, near[0].score)
	return picked{name: near[0].name, text: text, run: near[0].run}, true, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func isFree(k string) bool {
	switch k {
	case kindPlm, kindMF, kindEVfold, kindPSICOV, kindPSISD, kindSeq, kindSep:
		return true
	}
	return false
}

// paired returns the runs of kinds a and b for compare.Compare, with a
// one-run side repeated under each seed of the other.
func paired(byKind map[string][]compare.Run, a, b string) []compare.Run {
	ra, rb := byKind[a], byKind[b]
	spread := func(one, other []compare.Run) []compare.Run {
		if len(one) != 1 || len(other) <= 1 {
			return one
		}
		var out []compare.Run
		for _, o := range other {
			r := one[0]
			r.Seed = o.Seed
			out = append(out, r)
		}
		return out
	}
	ra, rb = spread(ra, rb), spread(rb, ra)
	return append(slices.Clone(ra), rb...)
}

// common restricts runs to the items every one of them has.
func common(runs []compare.Run) []compare.Run {
	n := map[string]int{}
	for _, r := range runs {
		for _, it := range r.Items {
			n[it]++
		}
	}
	keep := map[string]bool{}
	for it, k := range n {
		keep[it] = k == len(runs)
	}
	return compare.OnlyItems(runs, keep)
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func meanSD(v []float64) (mu, sd float64) {
	mu = mean(v)
	if len(v) < 2 {
		return mu, 0
	}
	for _, x := range v {
		sd += (x - mu) * (x - mu)
	}
	return mu, math.Sqrt(sd / float64(len(v)-1))
}
