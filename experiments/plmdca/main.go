// Command plmdca scores plmDCA (package pipeline/potts) against Debian's
// freecontact (its EVfold mean-field DCA and PSICOV modes) on PSICOV
// benchmark families: long-range (|i-j| >= 24) top-L/5, top-L/2 and top-L
// precision of C-beta contacts closer than 8 Å (pdb.NewContacts with
// pdb.CBeta; metrics.Evaluate, the project's metric code), per family,
// then the means over families, the paired differences plmDCA minus each
// freecontact mode with percentile bootstrap 95% intervals over families,
// and the wins, ties and losses. It also times each method on one
// thread.
//
//	go run ./experiments/plmdca -n 24            # the 24 families cheapest to fit
//	go run ./experiments/plmdca -ids 1vfyA,1kw4A # named families
//
// Families: ../shared/data/psicov150 (aln/<ID>.aln.gz, pdb/<ID>.pdb.gz,
// one residue per alignment column). -n picks the n cheapest to fit:
// the smallest N x L^2 (sequences times columns squared, what one
// evaluation of the objective costs), ties by ID. freecontact's outputs are
// cached in -cache (a rerun with another plmDCA setting does not run it
// again; its times come from the first run); an empty -freecontact
// leaves it out. -alt-eps fits each family again at other values of the stopping
// criterion's epsilon (potts.Options.Epsilon), reported as methods
// "plm eps=X" with their paired differences from the default fit, their
// evaluations of the objective and their times: what looser convergence
// costs in precision and saves in time. Writes -out/results.tsv (one row
// per family and method) and -out/report.md.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contactmap/contactmap/experiments/internal/freecontact"
	"github.com/contactmap/contactmap/experiments/internal/shellquote"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/potts"
	"github.com/contactmap/contactmap/pipeline/predict"
)

type family struct {
	id   string
	l, n int
}

// calib holds plmDCA's z-scores (predict.PlmZScores) and C-beta
// contacts of every known pair with |i-j| >= 6 of every family, for the
// logistic calibration of predict.PlmProbabilities.
var calib struct {
	z []float64
	y []bool
}

type row struct {
	id      string
	l, n    int
	neff    float64
	method  string
	top     [3]float64 // long-range top-L/5, L/2, L
	seconds float64
	evals   int // plmDCA: evaluations of the objective and gradient
	note    string
}

func main() {
	data := flag.String("data", "../shared/data/psicov150", "PSICOV families: aln/<ID>.aln.gz and pdb/<ID>.pdb.gz")
	n := flag.Int("n", 24, "families: the n cheapest to fit (smallest N x L^2; ties by ID)")
	ids := flag.String("ids", "", "comma-separated family IDs (instead of -n)")
	out := flag.String("out", "experiments/plmdca", "directory for results.tsv and report.md")
	cache := flag.String("cache", filepath.Join(os.TempDir(), "contactmap-plmdca-freecontact"), "freecontact outputs cache")
	threads := flag.Int("threads", 1, "threads for plmDCA and freecontact")
	lj := flag.Float64("lambda-j-factor", 0, "plmDCA coupling regularisation factor (0: the package default)")
	lh := flag.Float64("lambda-h", 0, "plmDCA field regularisation (0: the package default)")
	maxit := flag.Int("maxit", 0, "plmDCA L-BFGS iterations (0: the package default)")
	eps := flag.Float64("eps", 0, "plmDCA relative decrease over 5 iterations to stop at (0: the package default)")
	gapCol := flag.Float64("max-gap-column", 0, "plmDCA fits only columns with at most this fraction of gaps (0: the package default)")
	cover := flag.Float64("min-coverage", 0, "plmDCA drops sequences with fewer residues than this fraction of L (0: the package default)")
	boot := flag.Int("boot", 10000, "bootstrap resamples")
	seed := flag.Uint64("seed", 1, "bootstrap seed")
	fcList := flag.String("freecontact", strings.Join(freecontact.Profiles, ","), "freecontact profiles to score beside plmDCA ('' for none)")
	altEps := flag.String("alt-eps", "", "comma-separated epsilons: fit each family again with each (methods \"plm eps=X\")")
	flag.Parse()
	var profiles []string
	if *fcList != "" {
		profiles = strings.Split(*fcList, ",")
	}
	var alts []float64
	if *altEps != "" {
		for _, f := range strings.Split(*altEps, ",") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || v <= 0 {
				fail(fmt.Errorf("-alt-eps: %q is not a positive number", f))
			}
			alts = append(alts, v)
		}
	}

	fams, err := families(*data, *n, *ids)
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		fail(err)
	}
	opt := potts.Options{Threads: *threads, LambdaJFactor: *lj, LambdaH: *lh, MaxIterations: *maxit, Epsilon: *eps, MaxGapColumn: *gapCol, MinCoverage: *cover}
	var rows []row
	for _, f := range fams {
		rs, err := scoreFamily(*data, *cache, f, opt, *threads, profiles, alts)
		if err != nil {
			fail(fmt.Errorf("%s: %w", f.id, err))
		}
		for _, r := range rs {
			fmt.Fprintf(os.Stderr, "%s L=%d N=%d Neff=%.0f %s: %.3f %.3f %.3f (%.1f s) %s\n", r.id, r.l, r.n, r.neff, r.method, r.top[0], r.top[1], r.top[2], r.seconds, r.note)
		}
		rows = append(rows, rs...)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	if err := writeTSV(filepath.Join(*out, "results.tsv"), rows); err != nil {
		fail(err)
	}
	var buf bytes.Buffer
	report(&buf, rows, fams, opt, *boot, *seed, shellquote.Join(os.Args[1:]), profiles, alts)
	os.Stdout.Write(buf.Bytes())
	if err := os.WriteFile(filepath.Join(*out, "report.md"), buf.Bytes(), 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "plmdca:", err)
	os.Exit(1)
}

// cost is a fit's work per evaluation up to a constant: N L^2.
func cost(f family) int { return f.n * f.l * f.l }

// families lists the families to score.
func families(dir string, n int, ids string) ([]family, error) {
	var names []string
	if ids != "" {
		names = strings.Split(ids, ",")
	} else {
		paths, err := filepath.Glob(filepath.Join(dir, "aln", "*.aln.gz"))
		if err != nil || len(paths) == 0 {
			return nil, fmt.Errorf("no alignments in %s/aln (%v)", dir, err)
		}
		for _, p := range paths {
			names = append(names, strings.TrimSuffix(filepath.Base(p), ".aln.gz"))
		}
	}
	var fams []family
	for _, id := range names {
		a, err := msa.ReadFile(filepath.Join(dir, "aln", id+".aln.gz"))
		if err != nil {
			return nil, err
		}
		fams = append(fams, family{id, a.L(), a.N()})
	}
	if ids == "" {
		slices.SortFunc(fams, func(a, b family) int {
			if ca, cb := cost(a), cost(b); ca != cb {
				return ca - cb
			}
			return strings.Compare(a.id, b.id)
		})
		fams = fams[:min(n, len(fams))]
	}
	return fams, nil
}

// precisions returns long-range top-L/5, L/2 and L of an l x l score map.
func precisions(s []float64, truth *pdb.Contacts) [3]float64 {
	p := make([]float32, len(s))
	for k, v := range s {
		p[k] = float32(v)
	}
	m := metrics.Evaluate("", p, truth)
	return [3]float64{m.TopL[metrics.Long][metrics.TopL5], m.TopL[metrics.Long][metrics.TopL2], m.TopL[metrics.Long][metrics.TopL1]}
}

// altMethod names the fit at another epsilon.
func altMethod(eps float64) string { return fmt.Sprintf("plm eps=%g", eps) }

func scoreFamily(dir, cache string, f family, opt potts.Options, threads int, profiles []string, alts []float64) ([]row, error) {
	alnPath := filepath.Join(dir, "aln", f.id+".aln.gz")
	a, err := msa.ReadFile(alnPath)
	if err != nil {
		return nil, err
	}
	st, err := pdb.ReadFile(filepath.Join(dir, "pdb", f.id+".pdb.gz"))
	if err != nil {
		return nil, err
	}
	res := st.Chains[0].Residues
	l := a.L()
	if len(res) != l {
		return nil, fmt.Errorf("%d residues, %d columns", len(res), l)
	}
	truth := pdb.NewContacts(res, pdb.ContactDef{Atoms: pdb.CBeta, Cutoff: pdb.ContactCutoff})
	start := time.Now()
	r, err := potts.Predict(a, opt)
	if err != nil {
		return nil, err
	}
	secs := time.Since(start).Seconds()
	m := r.Model
	base := row{id: f.id, l: l, n: a.N(), neff: m.Neff}
	note := fmt.Sprintf("%d of %d columns, %d sequences kept, %d unique, %d iterations, %d evaluations, %s", len(r.Columns), l, r.Kept, m.Unique, m.Iterations, m.Evaluations, m.Status)
	var rows []row
	add := func(method string, s []float64, secs float64, evals int, note string) {
		r := base
		r.method, r.top, r.seconds, r.evals, r.note = method, precisions(s, truth), secs, evals, note
		rows = append(rows, r)
	}
	add("plm", r.Scores, secs, m.Evaluations, note)
	for _, eps := range alts {
		o := opt
		o.Epsilon = eps
		start := time.Now()
		ra, err := potts.Predict(a, o)
		if err != nil {
			return nil, err
		}
		ma := ra.Model
		add(altMethod(eps), ra.Scores, time.Since(start).Seconds(), ma.Evaluations, fmt.Sprintf("%d iterations, %d evaluations, %s", ma.Iterations, ma.Evaluations, ma.Status))
	}
	z := predict.PlmZScores(r.Scores, l)
	for i := 0; i < l; i++ {
		for j := i + predict.DefaultRRMinSep; j < l; j++ {
			if c, known := truth.At(i, j); known {
				calib.z = append(calib.z, z[i*l+j])
				calib.y = append(calib.y, c)
			}
		}
	}
	alnRows := make([]string, a.N())
	for k, r := range a.Rows {
		alnRows[k] = string(r)
	}
	for _, prof := range profiles {
		s, d, err := freecontact.Cached(cache, f.id, alnRows, prof, threads, 0)
		secs := d.Seconds()
		if err != nil {
			rows = append(rows, row{id: f.id, l: l, n: a.N(), neff: m.Neff, method: "freecontact-" + prof, top: [3]float64{math.NaN(), math.NaN(), math.NaN()}, note: err.Error()})
			continue
		}
		add("freecontact-"+prof, s, secs, 0, "")
	}
	return rows, nil
}

func writeTSV(path string, rows []row) error {
	var b bytes.Buffer
	fmt.Fprintln(&b, "family\tL\tN\tNeff\tmethod\tlong_top_L5\tlong_top_L2\tlong_top_L\tseconds\tnote")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s\t%d\t%d\t%.1f\t%s\t%.4f\t%.4f\t%.4f\t%.2f\t%s\n", r.id, r.l, r.n, r.neff, r.method, r.top[0], r.top[1], r.top[2], r.seconds, r.note)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// values returns metric k of method for each family, in family order;
// ok is false where any family lacks it.
func values(rows []row, fams []family, method string, k int) ([]float64, bool) {
	v := make([]float64, len(fams))
	for i, f := range fams {
		found := false
		for _, r := range rows {
			if r.id == f.id && r.method == method && !math.IsNaN(r.top[k]) {
				v[i], found = r.top[k], true
			}
		}
		if !found {
			return nil, false
		}
	}
	return v, true
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// bootCI is the percentile bootstrap 95% interval of the mean of v.
func bootCI(v []float64, resamples int, seed uint64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	ms := make([]float64, resamples)
	for b := range ms {
		s := 0.0
		for range v {
			s += v[rng.IntN(len(v))]
		}
		ms[b] = s / float64(len(v))
	}
	slices.Sort(ms)
	return ms[int(0.025*float64(resamples))], ms[int(math.Ceil(0.975*float64(resamples)))-1]
}

var metricNames = [3]string{"long top-L/5", "long top-L/2", "long top-L"}

func report(w *bytes.Buffer, rows []row, fams []family, opt potts.Options, resamples int, seed uint64, args string, profiles []string, alts []float64) {
	methods := []string{"plm"}
	var others []string // compared with plm below
	for _, eps := range alts {
		methods = append(methods, altMethod(eps))
		others = append(others, altMethod(eps))
	}
	for _, p := range profiles {
		methods = append(methods, "freecontact-"+p)
		others = append(others, "freecontact-"+p)
	}
	fmt.Fprintf(w, "# plmDCA against freecontact on %d PSICOV families\n\n", len(fams))
	fmt.Fprintf(w, "`go run ./experiments/plmdca %s`; plmDCA options %+v (zero: package defaults). C-beta contacts < 8 Å, |i-j| >= 24. Means over families; paired differences with percentile bootstrap 95%% intervals over families (%d resamples, seed %d).\n\n", args, opt, resamples, seed)
	fmt.Fprintln(w, "| method | "+strings.Join(metricNames[:], " | ")+" | mean seconds (1 thread) | mean evaluations |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, m := range methods {
		line := "| " + m
		for k := range metricNames {
			v, ok := values(rows, fams, m, k)
			if !ok {
				line += " | n/a"
				continue
			}
			line += fmt.Sprintf(" | %.3f", mean(v))
		}
		var secs, evals []float64
		for _, r := range rows {
			if r.method == m {
				secs = append(secs, r.seconds)
				evals = append(evals, float64(r.evals))
			}
		}
		line += fmt.Sprintf(" | %.1f |", mean(secs))
		if strings.HasPrefix(m, "plm") {
			line += fmt.Sprintf(" %.1f |", mean(evals))
		} else {
			line += " - |"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| difference | metric | mean | 95% CI | wins/ties/losses |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, a := range []string{"plm"} {
		for _, b := range others {
			for k, name := range metricNames {
				va, ok1 := values(rows, fams, a, k)
				vb, ok2 := values(rows, fams, b, k)
				if !ok1 || !ok2 {
					continue
				}
				d := make([]float64, len(va))
				wins, ties, losses := 0, 0, 0
				for i := range va {
					d[i] = va[i] - vb[i]
					switch {
					case d[i] > 1e-12:
						wins++
					case d[i] < -1e-12:
						losses++
					default:
						ties++
					}
				}
				lo, hi := bootCI(d, resamples, seed)
				fmt.Fprintf(w, "| %s − %s | %s | %+.3f | [%+.3f, %+.3f] | %d/%d/%d |\n", a, b, name, mean(d), lo, hi, wins, ties, losses)
			}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| family | L | N | Neff | "+strings.Join(methods, " | ")+" |")
	fmt.Fprintln(w, "|---|---|---|---|"+strings.Repeat("---|", len(methods)))
	for _, f := range fams {
		line := fmt.Sprintf("| %s | %d | %d |", f.id, f.l, f.n)
		neff := ""
		cells := ""
		for _, m := range methods {
			cell := " n/a |"
			for _, r := range rows {
				if r.id == f.id && r.method == m {
					neff = fmt.Sprintf(" %.0f |", r.neff)
					if !math.IsNaN(r.top[0]) {
						cell = fmt.Sprintf(" %.3f |", r.top[0])
					}
				}
			}
			cells += cell
		}
		fmt.Fprintln(w, line+neff+cells)
	}
	fmt.Fprintln(w, "\n(per-family cells: long-range top-L/5)")
	a, b := logistic(calib.z, calib.y)
	fmt.Fprintf(w, "\nCalibration of plmDCA's scores (predict.PlmProbabilities): logistic regression of C-beta contact on z (the APC score standardised over a family's pairs with |i-j| >= 6) over the %d known pairs with |i-j| >= 6 of these families: slope %.4f, intercept %.4f (the package uses slope %g, intercept %g).\n\n", len(calib.z), a, b, predict.PlmSlope, predict.PlmIntercept)
	fmt.Fprintln(w, "| probability (package constants) | pairs | mean probability | contacts |")
	fmt.Fprintln(w, "|---|---|---|---|")
	edges := []float64{0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0001}
	for k := 0; k+1 < len(edges); k++ {
		n, sp, sy := 0, 0.0, 0.0
		for i, z := range calib.z {
			p := 1 / (1 + math.Exp(-(predict.PlmSlope*z + predict.PlmIntercept)))
			if p >= edges[k] && p < edges[k+1] {
				n++
				sp += p
				if calib.y[i] {
					sy++
				}
			}
		}
		if n > 0 {
			fmt.Fprintf(w, "| %.1f-%.1f | %d | %.3f | %.3f |\n", edges[k], min(edges[k+1], 1), n, sp/float64(n), sy/float64(n))
		}
	}
}

// logistic fits P(y) = 1/(1+exp(-(a z + b))) by Newton's method.
func logistic(z []float64, y []bool) (a, b float64) {
	for it := 0; it < 50; it++ {
		var ga, gb, haa, hab, hbb float64
		for i, v := range z {
			p := 1 / (1 + math.Exp(-(a*v + b)))
			r := p
			if y[i] {
				r = p - 1
			}
			ga += r * v
			gb += r
			h := p * (1 - p)
			haa += h * v * v
			hab += h * v
			hbb += h
		}
		det := haa*hbb - hab*hab
		if det == 0 {
			break
		}
		da := (hbb*ga - hab*gb) / det
		db := (haa*gb - hab*ga) / det
		a, b = a-da, b-db
		if math.Abs(da)+math.Abs(db) < 1e-10 {
			break
		}
	}
	return a, b
}
