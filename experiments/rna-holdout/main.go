// Command rna-holdout clusters the RNA training data (bpRNA TR0 and the
// 16S set) into families by sequence and structure similarity, checks
// the thresholds on dinucleotide-shuffled controls and on ArchiveII's
// labelled families, and writes a family-held-out validation split and
// the clusters (issue 56, part 1); with -folds, for each ArchiveII family
// the training molecules to exclude from its fold (folds.go). See
// README.md.
//
//	GOMAXPROCS=1 go run ./experiments/rna-holdout > experiments/rna-holdout/report.md
//	GOMAXPROCS=1 go run ./experiments/rna-holdout -folds > experiments/rna-holdout/archiveII-folds/report.md
package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/homology"
	"github.com/contactmap/contactmap/rna/ssnet"
)

var (
	tr0Flag     = flag.String("tr0", "../shared/data/bprna/TR0.dbn.gz", "bpRNA TR0")
	s16Flag     = flag.String("16s", "data/rna/16s-finaltrain.txt,data/rna/16s-finalvalid.txt", "the 16S training and validation sets, comma-separated")
	vl0Flag     = flag.String("vl0", "../shared/data/bprna/VL0.dbn.gz", "bpRNA VL0")
	ts0Flag     = flag.String("ts0", "../shared/data/bprna/TS0.dbn.gz", "bpRNA TS0")
	archFlag    = flag.String("archive", "../shared/data/archiveII/archiveII.dbn.gz", "ArchiveII")
	outFlag     = flag.String("out", "experiments/rna-holdout", "output directory")
	topFlag     = flag.Int("top", 8, "prefilter: candidates per query under each ranking (Jaccard, shared 8-mers)")
	sharedFlag  = flag.Int("min-shared", 2, "prefilter: least distinct 8-mers shared with the query")
	covFlag     = flag.Float64("min-cov", 0.8, "least coverage of the shorter sequence by the alignment")
	pairsFlag   = flag.Int("min-pairs", 5, "structure test: least base pairs of the query")
	falseFlag   = flag.Float64("max-false", 0.001, "largest false link rate, on the shuffled controls and between ArchiveII families")
	seedFlag    = flag.Uint64("seed", 1, "seed of the shuffles and of the split")
	fracFlag    = flag.Float64("valid-frac", 0.10, "share of TR0 molecules held out")
	maxClusFlag = flag.Int("max-cluster", 200, "largest cluster (TR0 molecules) drawn into the validation set")
	baseFlag    = flag.Bool("baselines", false, "instead of clustering: the MFE and centroid F1 on the held-out set (valid.dbn.gz in -out)")
	mfeFlag     = flag.String("mfe-cache", "experiments/rna-families/mfe-cache.tsv.gz", "MFE cache for -baselines (\"\": fold every molecule)")
	maxLenFlag  = flag.Int("max-len", 600, "-baselines: longest molecule folded")
	scoreFlag   = flag.String("score", "", "instead of clustering: score model files on valid.dbn.gz in -out, NAME=FILE,... (templates from the training side, as in training; MFE and ensemble channels from -mfe-cache and -ensemble-cache), under the greedy and mea decoders, per molecule into -out/scores-NAME.tsv")
	ensCacheFlg = flag.String("ensemble-cache", "", "-score: the ensemble cache (ssnet.EnsembleCache) for networks with the ensemble channel")
	digitsFlag  = flag.Int("digits", 3, "-paired: decimals printed")
	pairedFlag  = flag.String("paired", "", "instead of clustering: paired differences A-B,C-D,... of per-molecule F1 over the molecules both score, from -out/baselines.tsv and -out/scores-*.tsv (names: mfe, centroid, mea, homology, stacking, or NAME/greedy, NAME/mea), with 95% bootstrap CIs (10,000 resamples, seed 1)")
	foldsFlag   = flag.Bool("folds", false, "instead of clustering: the ArchiveII family folds' exclusion lists (-out/archiveII-folds/), by direct links in both directions under a wider prefilter (-fold-top) and the fragment-aware structure test (SpanF1); the report to standard output")
	foldTopFlag = flag.Int("fold-top", 32, "-folds: prefilter candidates per query under each ranking")
	foldIDFlag  = flag.Float64("fold-id", 0.76, "-folds: the sequence test's identity (the clustering's chosen value, report.md)")
	foldF1Flag  = flag.Float64("fold-f1", 0.45, "-folds: the structure test's SpanF1 (the clustering's chosen F1, report.md)")
	foldRepFlag = flag.String("fold-report", "", "instead of clustering: the ArchiveII family-fold table from each fold's scores (-out/archiveII-folds/FAMILY/baselines.tsv and scores-NAME.tsv) of this network NAME, under -fold-decoder")
	foldDecFlag = flag.String("fold-decoder", "mea", "-fold-report: the network's decoder named by the protocol (the other is reported beside it)")
	foldXFlag   = flag.String("fold-extra", "", "-fold-report: further columns, NAME/DECODER comma-separated, from the folds' score files (the model-free consensus: CC/cc)")
	foldSetFlag = flag.String("fold-sets", "", "instead of clustering: write each ArchiveII fold's training, selection and test sets (foldSets) into this directory, one folder per family")
	setsFlag    = flag.String("sets", "", "-score, -baselines: the directory holding train.dbn.gz and the scored set (default: -out)")
	scoredFlag  = flag.String("scored", "valid.dbn.gz", "-score, -baselines: the set scored, a file in -sets")
	ensGlobFlag = flag.Int("ensemble-global", 0, "-ensembles: the rule of the channels computed (ssnet.EnsembleFold: molecules of at most this many bases fold globally; 0: 200, the families-ensemble rule; 600: families-ensemble-global's). -score: when above 0, every network's channels under this rule instead of its record's (trial 6: a rule at inference only)")
	minLenFlag  = flag.Int("min-len", 0, "-paired: only the molecules of more than this many bases")
	homMaxFlag  = flag.Float64("homology-max", -1, "-paired: only the molecules whose homology-transfer F1 (baselines.tsv) is at most this (0: the molecules without a relative whose structure transfers a single pair; negative: every molecule)")
	homMinFlag  = flag.Float64("homology-min", -1, "-paired: only the molecules whose homology-transfer F1 (baselines.tsv) is above this (0: those with a relative; negative: every molecule)")
	ensTempFlag = flag.Float64("ensemble-temp", ssnet.DefaultEnsembleTemp, "-ensembles: the temperature of the channels computed, degrees Celsius (ssnet.EnsembleFold.Temperature; trial 22's further channels)")
	ensSetsFlag = flag.String("ensemble-sets", "", "-ensembles: the sets computed, comma-separated (default: the split's, as -ensembles says)")
	longFlag    = flag.String("long-split", "", "instead of clustering: write split2 into this directory: -out's validation set plus whole training clusters of clusters.tsv (of at most -max-cluster molecules) with a molecule over 200 nt, drawn until -long-want such molecules (trials.md, trial 10); the report to standard output")
	longWant    = flag.Int("long-want", 300, "-long-split: the drawn molecules of more than 200 nt wanted")
	blendFlag   = flag.String("blend", "", "-score: also the MEA decoder on (1 - w) P + w Q for each weight w here (comma-separated, in (0, 1]), Q the McCaskill pair probabilities under -blend-global's rule from -ensemble-cache, as the predictors NAME/bW (W = 100 w) (trials.md, trial 10)")
	consFlag    = flag.String("consensus", "", "-score: also trial 17's predictor NAME/cc: the network's probabilities in the query's place in its homologs' consensus, from this support file (rna-consensus run's support.tsv.gz; trials.md, trials 16-17)")
	consWFlag   = flag.Float64("consensus-w", 1, "-consensus: the weight w of the consensus Q in (1 - w) P + w Q (trial 16's selected candidate)")
	consGFlag   = flag.Float64("consensus-gamma", 0, "-consensus: the decoder of the blend, rna.DecodeMEA's gamma; 0 the centroid, pairs over 0.5 (trial 16's selected candidate)")
	hybridFlag  = flag.String("hybrid", "", "-score: also trial 18's predictors NAME/hA: the network's probabilities P as the pair bonuses alpha logit P of Turner 2004's global ensemble (molecules of at most 600 nt without a template the network sees; others P alone), MEA-decoded, for each exponent alpha here (comma-separated, A = 100 alpha)")
	gammasFlag  = flag.String("gammas", "", "-score: also trial 21's predictors NAME/gG: the network's probabilities (the members' mean for an ensemble) decoded by rna.DecodeMEA at each gamma G here (comma-separated, not 1: NAME/mea is gamma 1)")
	blendGlob   = flag.Int("blend-global", 600, "-blend: the rule of Q (ssnet.EnsembleFold: molecules of at most this many bases fold globally)")
	withGlbFlag = flag.String("with-global", "", "instead of clustering: write the model file IN to OUT (IN=OUT) under -ensemble-global's rule of the ensemble channel, its parameters unchanged (trials.md, trial 10: EG)")
	ensFlag     = flag.String("ensembles", "", "instead of clustering: compute the ensemble channel (ssnet.EnsembleFold.Pairs, under -ensemble-global, at -ensemble-temp) of the training and validation molecules (train.dbn.gz, valid.dbn.gz in -out, and -16s) into this cache file, resumable (what is there is kept)")
)

// mol is a molecule of any set.
type mol struct {
	name, set, seq string
	partner        []int
	family         string // ArchiveII family
}

// link is a candidate pair's score.
type link struct {
	ref int
	ps  homology.PairScore
}

func main() {
	flag.Parse()
	start := time.Now()
	// Ctrl-C stops the long steps (the ensemble channels, the scoring)
	// between molecules; what -ensembles computed is in its cache.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *ensGlobFlag < 0 || *ensGlobFlag > ssnet.MaxEnsembleGlobal {
		check(fmt.Errorf("-ensemble-global %d: want 0..%d", *ensGlobFlag, ssnet.MaxEnsembleGlobal))
	}
	if *baseFlag {
		check(baselines(filepath.Join(setsDir(), *scoredFlag)))
		return
	}
	if *scoreFlag != "" {
		check(score(ctx, *scoreFlag))
		logf("done in %s", time.Since(start).Round(time.Second))
		return
	}
	if *pairedFlag != "" {
		check(paired(*pairedFlag))
		return
	}
	if *foldsFlag {
		check(folds())
		logf("done in %s", time.Since(start).Round(time.Second))
		return
	}
	if *foldRepFlag != "" {
		check(foldReport(os.Stdout, filepath.Join(*outFlag, "archiveII-folds"), *foldRepFlag, *foldDecFlag, *foldXFlag))
		return
	}
	if *foldSetFlag != "" {
		check(foldSets(*foldSetFlag))
		return
	}
	if *longFlag != "" {
		check(longSplit(os.Stdout, *longFlag))
		logf("done in %s", time.Since(start).Round(time.Second))
		return
	}
	if *withGlbFlag != "" {
		check(withGlobal(*withGlbFlag, *ensGlobFlag))
		return
	}
	if *ensFlag != "" {
		check(ensembles(ctx, *ensFlag))
		logf("done in %s", time.Since(start).Round(time.Second))
		return
	}
	refs, nTR0, err := readRefs() // the clustering set: TR0, then the 16S sets
	check(err)
	seqs := make([]string, len(refs))
	for i, m := range refs {
		seqs[i] = m.seq
	}
	ix := homology.NewWordIndex(seqs)
	logf("indexed %d molecules (%d TR0)", len(refs), nTR0)

	// Real and shuffled searches of the clustering set against itself.
	real := searchAll(refs, ix, refs, func(q, r int) bool { return q == r }, "real")
	rng := rand.New(rand.NewPCG(*seedFlag, 1))
	shuf := make([]mol, len(refs))
	for i, m := range refs {
		shuf[i] = m
		shuf[i].seq = homology.DinucleotideShuffle(m.seq, rng)
	}
	shuffled := searchAll(shuf, ix, refs, func(q, r int) bool { return q == r }, "shuffled")

	// ArchiveII against itself: a labelled control.
	arch, err := read(*archFlag, "archiveII")
	check(err)
	aseqs := make([]string, len(arch))
	for i, m := range arch {
		aseqs[i] = m.seq
	}
	aix := homology.NewWordIndex(aseqs)
	archSelf := searchAll(arch, aix, arch, func(q, r int) bool { return q == r }, "archiveII")

	fmt.Printf("# Family clusters of TR0 and the 16S set: the run's report\n\n")
	fmt.Printf("Clustering set: %d molecules (%d TR0, %d 16S). Prefilter: top %d by Jaccard and top %d by shared 8-mers, at least %d shared; overlap alignment (free end gaps); coverage >= %.2f of the shorter sequence.\n\n",
		len(refs), nTR0, len(refs)-nTR0, *topFlag, *topFlag, *sharedFlag, *covFlag)

	// Sequence threshold.
	idGrid := []float64{0.60, 0.65, 0.70, 0.72, 0.74, 0.76, 0.78, 0.80, 0.85, 0.90}
	seqPass := func(t float64) func(q int, l link) bool {
		return func(q int, l link) bool { return l.ps.Coverage >= *covFlag && l.ps.Identity >= t }
	}
	fmt.Printf("## Sequence test: identity >= t (coverage >= %.2f)\n\n", *covFlag)
	fmt.Println("Rates are per query: the share of queries with at least one link.")
	fmt.Println()
	fmt.Println("| t | real TR0+16S | shuffled (false) | ArchiveII same family | ArchiveII other family (false) |")
	fmt.Println("|---:|---:|---:|---:|---:|")
	tID := -1.0
	for _, t := range idGrid {
		p := seqPass(t)
		fr := rate(shuffled, nil, p)
		same, other := archRates(arch, archSelf, p)
		fmt.Printf("| %.2f | %.4f | %.4f | %.4f | %.4f |\n", t, rate(real, nil, p), fr, same, other)
		if tID < 0 && fr < *falseFlag && other < *falseFlag {
			tID = t
		}
	}
	if tID < 0 {
		tID = idGrid[len(idGrid)-1]
	}
	fmt.Printf("\nChosen: identity >= %.2f (the lowest with both false link rates, shuffled and ArchiveII other family, under %.3f).\n\n", tID, *falseFlag)

	// Sequence clusters, for the structure test's control.
	seqUF := homology.NewUnionFind(len(refs))
	for q, ls := range real {
		for _, l := range ls {
			if seqPass(tID)(q, l) {
				seqUF.Union(q, l.ref)
			}
		}
	}
	f1Grid := []float64{0.30, 0.40, 0.45, 0.50, 0.55, 0.60, 0.70, 0.80, 0.90}
	strPass := func(t float64) func(q int, l link) bool {
		return func(q int, l link) bool {
			return l.ps.Coverage >= *covFlag && l.ps.QueryPairs >= *pairsFlag && l.ps.F1 >= t
		}
	}
	// A shuffled copy of i keeps i's structure, which its family shares:
	// only its links outside i's sequence cluster count as false.
	outside := func(q int, l link) bool { return seqUF.Find(q) != seqUF.Find(l.ref) }
	fmt.Printf("## Structure test: F1 of the transferred pairs >= t (query >= %d pairs, coverage >= %.2f)\n\n", *pairsFlag, *covFlag)
	fmt.Println("Shuffled: the shuffled copy keeps its original's structure, so only links outside the original's sequence cluster count (an upper bound on the false rate: a remote homolog there is a true link).")
	fmt.Println()
	fmt.Println("| t | real TR0+16S | real, outside the sequence cluster | shuffled (false) | ArchiveII same family | ArchiveII other family (false) |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|")
	tF1 := -1.0
	for _, t := range f1Grid {
		p := strPass(t)
		fr := rate(shuffled, outside, p)
		same, other := archRates(arch, archSelf, p)
		fmt.Printf("| %.2f | %.4f | %.4f | %.4f | %.4f | %.4f |\n", t, rate(real, nil, p), rate(real, outside, p), fr, same, other)
		if tF1 < 0 && fr < *falseFlag && other < *falseFlag {
			tF1 = t
		}
	}
	if tF1 < 0 {
		tF1 = 2 // never
	}
	fmt.Printf("\nChosen: F1 >= %.2f (the same rule).\n\n", tF1)
	pass := func(q int, l link) bool { return seqPass(tID)(q, l) || strPass(tF1)(q, l) }
	same, other := archRates(arch, archSelf, pass)
	fmt.Printf("The combined test (sequence or structure): real %.4f, shuffled %.4f (sequence links, and structure links outside the sequence cluster); ArchiveII same family %.4f, other family %.4f.\n\n",
		rate(real, nil, pass), rateEither(shuffled, seqPass(tID), strPass(tF1), outside), same, other)

	// Clusters.
	uf := homology.NewUnionFind(len(refs))
	for q, ls := range real {
		for _, l := range ls {
			if pass(q, l) {
				uf.Union(q, l.ref)
			}
		}
	}
	members := map[int][]int{}
	for i := range refs {
		r := uf.Find(i)
		members[r] = append(members[r], i)
	}
	roots := make([]int, 0, len(members))
	for r := range members {
		roots = append(roots, r)
	}
	sort.Slice(roots, func(a, b int) bool {
		if len(members[roots[a]]) != len(members[roots[b]]) {
			return len(members[roots[a]]) > len(members[roots[b]])
		}
		return roots[a] < roots[b]
	})
	clusterID := make([]int, len(refs)) // 1 = largest
	for k, r := range roots {
		for _, i := range members[r] {
			clusterID[i] = k + 1
		}
	}
	size := func(c int) int { return len(members[roots[c-1]]) }
	clusterStats(refs, roots, members, nTR0)

	// The split.
	validTR0 := split(refs, roots, members, nTR0)
	isValid := make([]bool, len(refs))
	nValid := 0
	validClusters := map[int]bool{}
	for _, i := range validTR0 {
		isValid[i] = true
		nValid++
		validClusters[clusterID[i]] = true
	}
	fmt.Printf("## Split\n\nHeld out %d TR0 molecules of %d clusters (%.1f%% of TR0), seed %d; training keeps %d TR0 molecules and the 16S sets.\n\n",
		nValid, len(validClusters), 100*float64(nValid)/float64(nTR0), *seedFlag, nTR0-nValid)
	// Check: search the held-out molecules against the training
	// molecules alone (a fresh prefilter, so other candidates).
	var trainIdx []int
	for i := range refs {
		if !isValid[i] {
			trainIdx = append(trainIdx, i)
		}
	}
	trainSeqs := make([]string, len(trainIdx))
	trainSet := make([]mol, len(trainIdx))
	for k, i := range trainIdx {
		trainSeqs[k], trainSet[k] = refs[i].seq, refs[i]
	}
	tix := homology.NewWordIndex(trainSeqs)
	var validSet []mol
	for _, i := range validTR0 {
		validSet = append(validSet, refs[i])
	}
	vcheck := searchAll(validSet, tix, trainSet, nil, "held-out check")
	// A held-out molecule that links to a training molecule under the
	// fresh search is dropped from the validation set (and not moved to
	// training, which stays as drawn): it has a relative in training.
	leaks := 0
	isDropped := make([]bool, len(refs))
	for q, ls := range vcheck {
		for _, l := range ls {
			if pass(q, l) {
				leaks++
				isDropped[validTR0[q]] = true
				break
			}
		}
	}
	fmt.Printf("Check: %d of the %d held-out molecules pass the test against a training molecule when searched against the training molecules alone; they are dropped from the validation set (dropped.txt), which keeps %d.\n\n", leaks, nValid, nValid-leaks)
	// Validation by source database.
	bySrc := map[string]int{}
	for _, i := range validTR0 {
		bySrc[source(refs[i].name)]++
	}
	fmt.Printf("Held-out molecules by source database: %s.\n\n", countList(bySrc))

	// VL0, TS0, ArchiveII against the clustering set.
	var rows []string
	for i, m := range refs {
		sp := "train"
		if isDropped[i] {
			sp = "dropped"
		} else if isValid[i] {
			sp = "valid"
		}
		rows = append(rows, fmt.Sprintf("%s\t%s\t%d\t%d\t%s", m.name, m.set, clusterID[i], size(clusterID[i]), sp))
	}
	fmt.Println("## VL0, TS0 and ArchiveII against the TR0+16S clusters")
	fmt.Println()
	fmt.Println("| set | molecules | in a TR0+16S cluster | share | in a held-out cluster |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, q := range []struct{ file, set string }{{*vl0Flag, "VL0"}, {*ts0Flag, "TS0"}, {*archFlag, "archiveII"}} {
		var ms []mol
		if q.set == "archiveII" {
			ms = arch
		} else {
			ms, err = read(q.file, q.set)
			check(err)
		}
		res := searchAll(ms, ix, refs, nil, q.set)
		hits := make([][]int, len(ms))
		in, inValid := 0, 0
		for k, ls := range res {
			best, bestScore := -1, -1.0
			seen := map[int]bool{}
			for _, l := range ls {
				if !pass(k, l) {
					continue
				}
				c := clusterID[l.ref]
				if !seen[c] {
					seen[c] = true
					hits[k] = append(hits[k], c)
				}
				if s := l.ps.Identity + l.ps.F1; s > bestScore {
					best, bestScore = c, s
				}
			}
			sort.Ints(hits[k])
			cl, sz := "-", 0
			if best > 0 {
				in++
				cl, sz = fmt.Sprint(best), size(best)
				for _, c := range hits[k] {
					if validClusters[c] {
						inValid++
						break
					}
				}
			}
			rows = append(rows, fmt.Sprintf("%s\t%s\t%s\t%d\t-", ms[k].name, q.set, cl, sz))
		}
		fmt.Printf("| %s | %d | %d | %.1f%% | %d |\n", q.set, len(ms), in, 100*float64(in)/float64(len(ms)), inValid)
	}
	fmt.Println()
	check(writeLines(filepath.Join(*outFlag, "clusters.tsv"), "name\tset\tcluster\tsize\tsplit", rows))

	// The ArchiveII folds' lists are -folds' (folds.go).

	// Split files, TR0's records as they are in its file.
	side := make([]int, nTR0) // 0 train, 1 valid, -1 dropped
	var dropped []string
	for k := range side {
		switch {
		case isDropped[k]:
			side[k] = -1
			dropped = append(dropped, refs[k].name)
		case isValid[k]:
			side[k] = 1
		}
	}
	check(writeLines(filepath.Join(*outFlag, "dropped.txt"), "# held-out molecules that link to a training molecule (a fresh search against training alone); in neither split", dropped))
	check(writeSplit(*outFlag, *tr0Flag, refs[:nTR0], side))
	logf("done in %s", time.Since(start).Round(time.Second))
}

// baselines prints the model-free thermodynamic rows on the held-out
// set: MFE (through the cache) and the ensemble's centroid, molecules of
// at most -max-len bases.
func baselines(file string) error {
	all, err := ssnet.ReadSet(file)
	if err != nil {
		return err
	}
	var set []ssnet.Molecule
	for _, m := range all {
		if len(m.Seq) <= *maxLenFlag {
			set = append(set, m)
		}
	}
	if *mfeFlag != "" {
		cache, err := ssnet.ReadMFECache(*mfeFlag)
		if err != nil {
			return err
		}
		logf("MFE: %d of %d molecules not in %s, folded", ssnet.AttachSeededMFE(set, cache), len(set), *mfeFlag)
	}
	// Homology transfer from the training side of the split: the TR0
	// molecules kept for training and the 16S sets (-16s).
	var refs []*rna.Structure
	for _, f := range append([]string{filepath.Join(setsDir(), "train.dbn.gz")}, strings.Split(*s16Flag, ",")...) {
		ms, err := ssnet.ReadSet(f)
		if err != nil {
			return err
		}
		for _, m := range ms {
			refs = append(refs, &rna.Structure{Name: m.Name, Seq: m.Seq, Partner: m.Partner})
		}
	}
	ix := homology.NewIndex(refs)
	// The centroid and the MEA structure come from one partition
	// function per molecule (the longest ArchiveII molecules take tens
	// of seconds each).
	ens := newEnsembleDecodings()
	centroid := func(mol *ssnet.Molecule) (*rna.Structure, error) {
		d, err := ens.get(mol)
		return d.centroid, err
	}
	mea := func(mol *ssnet.Molecule) (*rna.Structure, error) {
		d, err := ens.get(mol)
		return d.mea, err
	}
	fmt.Printf("Model-free rows on %s: %d of %d molecules (those of at most %d nt), F1 and MCC, means over molecules (exact pairs; in brackets with the one-position slip); homology transfer from the %d training molecules (train.dbn.gz and the 16S sets).\n\n", file, len(set), len(all), *maxLenFlag, len(refs))
	fmt.Println("| predictor | F1 | MCC | F1 (slip) |")
	fmt.Println("|---|---:|---:|---:|")
	var rows []string
	for _, p := range []struct {
		key, name string
		pred      ssnet.Predictor
	}{{"mfe", "MFE (Turner 2004, rna/fold)", ssnet.MFEPredictor()}, {"centroid", "centroid of the ensemble", centroid}, {"mea", "MEA of the ensemble (gamma 1)", mea}, {"homology", "homology transfer", ssnet.HomologyPredictor(ix)}, {"stacking", "stacking heuristic", ssnet.BaselinePredictor()}} {
		t0 := time.Now()
		scores, err := ssnet.Evaluate(set, p.pred, nil)
		if err != nil {
			return err
		}
		for _, sc := range scores {
			rows = append(rows, fmt.Sprintf("%s\t%s\t%d\t%.6f\t%.6f\t%.6f", p.key, sc.Name, sc.Len, sc.Exact.F1, sc.Exact.MCC, sc.Shift.F1))
		}
		s := ssnet.Summarize(scores)
		fmt.Printf("| %s | %.3f | %.3f | %.3f |\n", p.name, s[0].Exact.F1, s[0].Exact.MCC, s[0].Shift.F1)
		for _, g := range s[1:] {
			fmt.Printf("| %s, %s (%d) | %.3f | %.3f | %.3f |\n", p.name, g.Group, g.N, g.Exact.F1, g.Exact.MCC, g.Shift.F1)
		}
		logf("%s: %s", p.name, time.Since(t0).Round(time.Second))
	}
	fmt.Println()
	// Per molecule, for paired differences against the trials.
	return writeLines(filepath.Join(*outFlag, "baselines.tsv"), "predictor\tname\tlength\tf1\tmcc\tf1_slip", rows)
}

// ensembleDecodings holds each molecule's centroid and MEA structures
// (gamma 1) of its Turner 2004 ensemble (fold's defaults, as
// ssnet.CentroidPredictor's), both decoded from one partition function
// that is computed on the first call for the molecule.
type ensembleDecodings struct {
	mu sync.Mutex
	m  map[string]*ensembleDecoding
}

type ensembleDecoding struct {
	once          sync.Once
	centroid, mea *rna.Structure
	err           error
}

func newEnsembleDecodings() *ensembleDecodings {
	return &ensembleDecodings{m: map[string]*ensembleDecoding{}}
}

func (e *ensembleDecodings) get(mol *ssnet.Molecule) (*ensembleDecoding, error) {
	e.mu.Lock()
	key := mol.Name + "\x00" + mol.Seq
	d, ok := e.m[key]
	if !ok {
		d = &ensembleDecoding{}
		e.m[key] = d
	}
	e.mu.Unlock()
	d.once.Do(func() {
		ens, err := fold.DefaultParams().Partition(mol.Seq, 1)
		if err != nil {
			d.err = err
			return
		}
		d.centroid, _ = ens.Centroid()
		d.centroid.Name = mol.Name
		if d.mea, _, d.err = ens.MEA(1); d.err == nil {
			d.mea.Name = mol.Name
		}
	})
	return d, d.err
}

// readRefs reads the clustering set, TR0 then the 16S sets, and the
// number of TR0 molecules.
func readRefs() ([]mol, int, error) {
	refs, err := read(*tr0Flag, "TR0")
	if err != nil {
		return nil, 0, err
	}
	nTR0 := len(refs)
	for k, f := range strings.Split(*s16Flag, ",") {
		ms, err := read(f, []string{"16S-train", "16S-valid"}[min(k, 1)])
		if err != nil {
			return nil, 0, err
		}
		refs = append(refs, ms...)
	}
	return refs, nTR0, nil
}

// read reads a set (ssnet.ReadSet: dot-bracket or five-line).
func read(file, set string) ([]mol, error) {
	ms, err := ssnet.ReadSet(file)
	if err != nil {
		return nil, err
	}
	out := make([]mol, len(ms))
	for i, m := range ms {
		out[i] = mol{name: m.Name, set: set, seq: m.Seq, partner: m.Partner}
		if set == "archiveII" {
			out[i].family, _, _ = strings.Cut(m.Name, "_")
		}
	}
	return out, nil
}

// searchAll finds each query's candidates in ix (over refs) and scores
// them; exclude (may be nil) drops a (query, reference) pair.
func searchAll(qs []mol, ix *homology.WordIndex, refs []mol, exclude func(q, r int) bool, what string) [][]link {
	return searchTop(qs, ix, refs, *topFlag, exclude, what)
}

// searchTop is searchAll with top candidates per ranking.
func searchTop(qs []mol, ix *homology.WordIndex, refs []mol, top int, exclude func(q, r int) bool, what string) [][]link {
	out := make([][]link, len(qs))
	t0 := time.Now()
	for q, m := range qs {
		var ex func(int) bool
		if exclude != nil {
			ex = func(r int) bool { return exclude(q, r) }
		}
		for _, c := range ix.Candidates(m.seq, top, *sharedFlag, ex) {
			r := refs[c.Ref]
			out[q] = append(out[q], link{c.Ref, homology.ScorePair(m.seq, m.partner, r.seq, r.partner)})
		}
		if (q+1)%2000 == 0 {
			logf("%s: %d of %d queries, %s", what, q+1, len(qs), time.Since(t0).Round(time.Second))
		}
	}
	logf("%s: %d queries in %s", what, len(qs), time.Since(t0).Round(time.Second))
	return out
}

// rate is the share of queries with a link that passes (and that
// counts, when counts is not nil).
func rate(res [][]link, counts, pass func(q int, l link) bool) float64 {
	n := 0
	for q, ls := range res {
		for _, l := range ls {
			if pass(q, l) && (counts == nil || counts(q, l)) {
				n++
				break
			}
		}
	}
	return float64(n) / float64(max(len(res), 1))
}

// rateEither is the shuffled control's rate of the combined test: a
// sequence link anywhere, or a structure link that counts.
func rateEither(res [][]link, seqPass, strPass, counts func(q int, l link) bool) float64 {
	return rate(res, nil, func(q int, l link) bool { return seqPass(q, l) || (strPass(q, l) && counts(q, l)) })
}

// archRates are the shares of ArchiveII molecules linked to a molecule
// of their own family and of another.
func archRates(arch []mol, res [][]link, pass func(q int, l link) bool) (same, other float64) {
	var ns, no int
	for q, ls := range res {
		s, o := false, false
		for _, l := range ls {
			if !pass(q, l) {
				continue
			}
			if arch[l.ref].family == arch[q].family {
				s = true
			} else {
				o = true
			}
		}
		if s {
			ns++
		}
		if o {
			no++
		}
	}
	n := float64(len(res))
	return float64(ns) / n, float64(no) / n
}

func source(name string) string {
	if f := strings.Split(name, "_"); len(f) == 3 && f[0] == "bpRNA" {
		return f[1]
	}
	return "16S"
}

func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if m[keys[a]] != m[keys[b]] {
			return m[keys[a]] > m[keys[b]]
		}
		return keys[a] < keys[b]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func clusterStats(refs []mol, roots []int, members map[int][]int, nTR0 int) {
	singles, small, tr0Clusters := 0, 0, 0
	for _, r := range roots {
		n := len(members[r])
		if n == 1 {
			singles++
		} else if n < 10 {
			small++
		}
		for _, i := range members[r] {
			if i < nTR0 {
				tr0Clusters++
				break
			}
		}
	}
	fmt.Printf("## Clusters\n\n%d clusters of %d molecules (%d with a TR0 molecule): %d singletons, %d of 2-9 molecules, %d of 10 or more.\n\n",
		len(roots), len(refs), tr0Clusters, singles, small, len(roots)-singles-small)
	fmt.Println("The largest, by source database:")
	fmt.Println()
	fmt.Println("| cluster | molecules | members |")
	fmt.Println("|---:|---:|---|")
	for k, r := range roots[:min(15, len(roots))] {
		src := map[string]int{}
		for _, i := range members[r] {
			src[source(refs[i].name)]++
		}
		fmt.Printf("| %d | %d | %s |\n", k+1, len(members[r]), countList(src))
	}
	fmt.Println()
}

// split draws whole clusters (no 16S member, at most -max-cluster
// molecules) in a seeded random order until the held-out TR0 molecules
// reach -valid-frac of TR0, and returns them (indices into refs).
func split(refs []mol, roots []int, members map[int][]int, nTR0 int) []int {
	var eligible []int
	for _, r := range roots {
		ok := len(members[r]) <= *maxClusFlag
		for _, i := range members[r] {
			if i >= nTR0 {
				ok = false
			}
		}
		if ok {
			eligible = append(eligible, r)
		}
	}
	rng := rand.New(rand.NewPCG(*seedFlag, 2))
	rng.Shuffle(len(eligible), func(a, b int) { eligible[a], eligible[b] = eligible[b], eligible[a] })
	want := int(*fracFlag*float64(nTR0) + 0.5)
	var out []int
	for _, r := range eligible {
		if len(out) >= want {
			break
		}
		out = append(out, members[r]...)
	}
	sort.Ints(out)
	return out
}

// writeSplit writes TR0's records, as its file holds them, to dir's
// train.dbn.gz and valid.dbn.gz.
func writeSplit(dir, tr0File string, tr0 []mol, side []int) error {
	f, err := os.Open(tr0File)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", tr0File, err)
	}
	var recs [][]string
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' {
			continue
		}
		if t[0] == '>' {
			recs = append(recs, nil)
		}
		if len(recs) == 0 {
			return fmt.Errorf("%s: a line before the first record", tr0File)
		}
		recs[len(recs)-1] = append(recs[len(recs)-1], t)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", tr0File, err)
	}
	if len(recs) != len(tr0) {
		return fmt.Errorf("%s: %d records, the reader gave %d", tr0File, len(recs), len(tr0))
	}
	var out [2][]string
	for k, r := range recs {
		if name := strings.Fields(r[0][1:])[0]; name != tr0[k].name {
			return fmt.Errorf("%s: record %d is %s, the reader gave %s", tr0File, k+1, name, tr0[k].name)
		}
		if v := side[k]; v >= 0 {
			out[v] = append(out[v], r...)
		}
	}
	for v, name := range []string{"train.dbn.gz", "valid.dbn.gz"} {
		if err := writeGz(filepath.Join(dir, name), out[v]); err != nil {
			return err
		}
	}
	return nil
}

func writeGz(path string, lines []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zw.ModTime = time.Time{}
	bw := bufio.NewWriter(zw)
	for _, l := range lines {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

func writeLines(path, header string, lines []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if header != "" {
		fmt.Fprintln(bw, header)
	}
	for _, l := range lines {
		fmt.Fprintln(bw, l)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// setsDir is where -score and -baselines read the split's sets.
func setsDir() string {
	if *setsFlag != "" {
		return *setsFlag
	}
	return *outFlag
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "rna-holdout: "+format+"\n", a...)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "rna-holdout:", err)
		os.Exit(1)
	}
}

// ensembles computes the ensemble channel of every training and
// validation molecule into the cache file path, appending as it goes.
func ensembles(ctx context.Context, path string) error {
	cache, err := ssnet.ReadEnsembleCache(path)
	if err != nil {
		return err
	}
	files := append([]string{filepath.Join(*outFlag, "valid.dbn.gz"), filepath.Join(*outFlag, "train.dbn.gz")}, strings.Split(*s16Flag, ",")...)
	if *ensSetsFlag != "" {
		files = strings.Split(*ensSetsFlag, ",")
	}
	var set []ssnet.Molecule
	for _, f := range files {
		ms, err := ssnet.ReadSet(f)
		if err != nil {
			return err
		}
		set = append(set, ms...)
	}
	logf("%d molecules, %d in the cache", len(set), cache.Len())
	t0 := time.Now()
	n := 0
	if t := *ensTempFlag; t != ssnet.DefaultEnsembleTemp && !ssnet.ValidEnsembleTemp(t) {
		return fmt.Errorf("-ensemble-temp %g: want a temperature in (%d, %d] C", t, ssnet.MinEnsembleTemp, ssnet.MaxEnsembleTemp)
	}
	f := ssnet.EnsembleFold{Global: *ensGlobFlag}.At(*ensTempFlag)
	logf("the rule: molecules of at most %d bases fold globally, at %g C", max(f.Global, ssnet.EnsembleSpan), f.TemperatureC())
	err = ssnet.AttachEnsembleFold(ctx, f, set, cache, path, 1, func() {
		if n++; n%500 == 0 {
			logf("%d molecules in %s", n, time.Since(t0).Round(time.Second))
		}
	})
	logf("%d computed in %s; %d in the cache", n, time.Since(t0).Round(time.Second), cache.Len())
	return err
}

// trainingSide reads the training molecules of the split: train.dbn.gz
// in -out and the 16S sets, in that order (as rna train reads
// --train 16s,train.dbn.gz, the template index is over them all).
func trainingSide() ([]ssnet.Molecule, error) {
	var set []ssnet.Molecule
	for _, f := range append(strings.Split(*s16Flag, ",")[:1], filepath.Join(setsDir(), "train.dbn.gz")) {
		ms, err := ssnet.ReadSet(f)
		if err != nil {
			return nil, err
		}
		set = append(set, ms...)
	}
	return set, nil
}

// score evaluates model files on the validation set, per molecule.
func score(ctx context.Context, spec string) error {
	valid, err := ssnet.ReadSet(filepath.Join(setsDir(), *scoredFlag))
	if err != nil {
		return err
	}
	var templatesDone, mfeDone bool
	var ensCache *ssnet.EnsembleCache // read once, for the first network with the ensemble channel
	for _, nf := range strings.Split(spec, ",") {
		name, file, ok := strings.Cut(nf, "=")
		if !ok {
			return fmt.Errorf("-score %q: want NAME=FILE", nf)
		}
		members := strings.Split(file, "+") // several: an ensemble (trial 12)
		var ms []*ssnet.Model
		for _, f := range members {
			m, err := ssnet.Load(f)
			if err != nil {
				return err
			}
			if *ensGlobFlag > 0 {
				m.Record.EnsembleGlobal = *ensGlobFlag // the network run under another rule (trial 6a)
			}
			if len(ms) > 0 {
				if err := ssnet.SameInputs(ms[0], m); err != nil {
					return fmt.Errorf("-score %s: %s and %s: %w", name, members[0], f, err)
				}
			}
			ms = append(ms, m)
		}
		m := ms[0]
		c := m.Record.Inputs2D()
		if c.Template && !templatesDone {
			train, err := trainingSide()
			if err != nil {
				return err
			}
			if err := ssnet.AttachTemplates(ctx, valid, ssnet.TemplateRefs(train), false, m.Record.MinIdentity); err != nil {
				return err
			}
			templatesDone = true
		}
		if c.Energy && !mfeDone {
			cache, err := ssnet.ReadMFECache(*mfeFlag)
			if err != nil {
				return err
			}
			logf("MFE: %d of %d molecules not in %s, folded", ssnet.AttachSeededMFE(valid, cache), len(valid), *mfeFlag)
			mfeDone = true
		}
		// every ensemble channel of the network (trial 22: at further
		// temperatures too); a molecule attached under a rule keeps it
		for _, f := range m.Record.EnsembleFolds() {
			if ensCache == nil {
				if ensCache, err = ssnet.ReadEnsembleCache(*ensCacheFlg); err != nil {
					return err
				}
			}
			if err := ssnet.AttachEnsembleFold(ctx, f, valid, ensCache, *ensCacheFlg, 1, nil); err != nil {
				return err
			}
		}
		var rows []string
		t0 := time.Now()
		decoders := []ssnet.Decoder{ssnet.Greedy, ssnet.MEA}
		byDecoder, err := ssnet.EvaluateEnsembleDecoders(ctx, valid, ms, 1, decoders, nil) // each network once per molecule
		if err != nil {
			return err
		}
		logf("%s (greedy, mea): %s", name, time.Since(t0).Round(time.Second))
		for k, d := range decoders {
			scores := byDecoder[k]
			for _, sc := range scores {
				rows = append(rows, fmt.Sprintf("%s/%s\t%s\t%d\t%.6f\t%.6f\t%.6f", name, d, sc.Name, sc.Len, sc.Exact.F1, sc.Exact.MCC, sc.Shift.F1))
			}
			s := ssnet.Summarize(scores)
			fmt.Printf("| %s (%s) | %.3f | %.3f | %.3f |\n", name, d, s[0].Exact.F1, s[0].Exact.MCC, s[0].Shift.F1)
		}
		if *blendFlag != "" {
			if len(ms) > 1 {
				return fmt.Errorf("-score %s: -blend scores one network, not an ensemble", name)
			}
			more, err := blendRows(ctx, name, m, valid)
			if err != nil {
				return err
			}
			rows = append(rows, more...)
		}
		if *hybridFlag != "" {
			more, err := hybridRows(ctx, name, ms, valid)
			if err != nil {
				return err
			}
			rows = append(rows, more...)
		}
		if *gammasFlag != "" {
			more, err := gammaRows(name, ms, valid)
			if err != nil {
				return err
			}
			rows = append(rows, more...)
		}
		if *consFlag != "" {
			more, err := consensusRows(name, ms, valid)
			if err != nil {
				return err
			}
			rows = append(rows, more...)
		}
		if err := writeLines(filepath.Join(*outFlag, "scores-"+name+".tsv"), "predictor\tname\tlength\tf1\tmcc\tf1_slip", rows); err != nil {
			return err
		}
	}
	return nil
}

// readScores reads the per-molecule F1 of dir's baselines.tsv and
// scores-*.tsv (predictor -> molecule -> F1) and the molecules'
// lengths (molecule -> length).
func readScores(dir string) (map[string]map[string]float64, map[string]int, error) {
	f1, lengths := map[string]map[string]float64{}, map[string]int{}
	files, _ := filepath.Glob(filepath.Join(dir, "scores-*.tsv"))
	for _, file := range append([]string{filepath.Join(dir, "baselines.tsv")}, files...) {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, err
		}
		for k, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if k == 0 {
				continue
			}
			f := strings.Split(line, "\t")
			if len(f) < 4 {
				return nil, nil, fmt.Errorf("%s line %d: %d fields", file, k+1, len(f))
			}
			var v float64
			if _, err := fmt.Sscan(f[3], &v); err != nil {
				return nil, nil, fmt.Errorf("%s line %d: %w", file, k+1, err)
			}
			l, err := strconv.Atoi(f[2])
			if err != nil {
				return nil, nil, fmt.Errorf("%s line %d: length: %w", file, k+1, err)
			}
			lengths[f[1]] = l
			if f1[f[0]] == nil {
				f1[f[0]] = map[string]float64{}
			}
			f1[f[0]][f[1]] = v
		}
	}
	return f1, lengths, nil
}

// paired prints the paired per-molecule F1 differences of predictor
// pairs with bootstrap CIs.
func paired(spec string) error {
	f1, lengths, err := readScores(*outFlag)
	if err != nil {
		return err
	}
	if *minLenFlag > 0 {
		fmt.Printf("Molecules of more than %d nt.\n\n", *minLenFlag)
	}
	hom := f1["homology"]
	if *homMaxFlag >= 0 || *homMinFlag >= 0 {
		if hom == nil {
			return fmt.Errorf("-homology-max, -homology-min: no homology row in %s", filepath.Join(*outFlag, "baselines.tsv"))
		}
		if *homMaxFlag >= 0 {
			fmt.Printf("Molecules whose homology transfer scores F1 at most %g.\n\n", *homMaxFlag)
		}
		if *homMinFlag >= 0 {
			fmt.Printf("Molecules whose homology transfer scores F1 above %g.\n\n", *homMinFlag)
		}
	}
	fmt.Println("| A - B | molecules | A | B | A - B | 95% CI |")
	fmt.Println("|---|---:|---:|---:|---:|---|")
	for _, ab := range strings.Split(spec, ",") {
		a, b, ok := strings.Cut(ab, "-")
		for _, name := range []string{a, b} {
			seedMean(f1, name)
		}
		if !ok || f1[a] == nil || f1[b] == nil {
			return fmt.Errorf("-paired %q: want A-B of known predictors", ab)
		}
		var names []string
		for n := range f1[a] {
			if !pairedKeeps(n, lengths, hom, *minLenFlag, *homMinFlag, *homMaxFlag) {
				continue
			}
			if _, ok := f1[b][n]; ok {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		d := make([]float64, len(names))
		var ma, mb float64
		for k, n := range names {
			d[k] = f1[a][n] - f1[b][n]
			ma += f1[a][n]
			mb += f1[b][n]
		}
		nn := float64(len(names))
		mean, lo, hi := bootstrapCI(d, 10000, 1)
		dg := *digitsFlag
		fmt.Printf("| %s - %s | %d | %.*f | %.*f | %+.*f | [%+.*f, %+.*f] |\n", a, b, len(names), dg, ma/nn, dg, mb/nn, dg, mean, dg, lo, dg, hi)
	}
	return nil
}

// pairedKeeps reports whether -paired counts molecule n: of more than
// minLen bases (minLen 0: any), its homology-transfer F1 above homMin
// and at most homMax (negative: no bound); a molecule without a homology
// score is left out under either bound.
func pairedKeeps(n string, lengths map[string]int, hom map[string]float64, minLen int, homMin, homMax float64) bool {
	if minLen > 0 && lengths[n] <= minLen {
		return false
	}
	h, ok := hom[n]
	return (homMax < 0 || ok && h <= homMax) && (homMin < 0 || ok && h > homMin)
}

// seedMean adds to f1, for a name R1+R2+.../DECODER, each molecule's mean
// F1 over the predictors R1/DECODER, R2/DECODER, ... (the molecules all of
// them score): the seed-mean of the keep rule (trials.md).
func seedMean(f1 map[string]map[string]float64, name string) {
	runs, dec, ok := strings.Cut(name, "/")
	parts := strings.Split(runs, "+")
	if !ok || len(parts) < 2 || f1[name] != nil {
		return
	}
	mean := map[string]float64{}
	for mol, v := range f1[parts[0]+"/"+dec] {
		sum, all := v, true
		for _, p := range parts[1:] {
			w, ok := f1[p+"/"+dec][mol]
			sum, all = sum+w, all && ok
		}
		if all {
			mean[mol] = sum / float64(len(parts))
		}
	}
	if len(mean) > 0 {
		f1[name] = mean
	}
}

// bootstrapCI is the mean of d and the 2.5 and 97.5 percentiles of the
// means of resamples of d (with replacement, PCG seed).
func bootstrapCI(d []float64, resamples int, seed uint64) (mean, lo, hi float64) {
	n := len(d)
	for _, v := range d {
		mean += v
	}
	mean /= float64(n)
	rng := rand.New(rand.NewPCG(seed, 1))
	means := make([]float64, resamples)
	for r := range means {
		var s float64
		for k := 0; k < n; k++ {
			s += d[rng.IntN(n)]
		}
		means[r] = s / float64(n)
	}
	sort.Float64s(means)
	return mean, means[int(0.025*float64(resamples))], means[int(0.975*float64(resamples))-1]
}
