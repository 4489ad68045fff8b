// Command rna-consensus runs trials 16 and 17 of experiments/rna-holdout
// (trials.md): an RNA folded with the homologs an nhmmer search finds
// (package rna/consensus, TurboFold's idea in one pass).
//
//	go run ./experiments/rna-consensus db -out /tmp/rna-db.fasta
//	go run ./experiments/rna-consensus run -db /tmp/rna-db.fasta -set experiments/rna-holdout/split2/train.dbn.gz -sample 300 -out DIR
//	go run ./experiments/rna-consensus run -db /tmp/rna-db.fasta -set experiments/rna-holdout/split2/valid.dbn.gz -out DIR -scores experiments/rna-holdout/split2/scores-CC.tsv
//
// db writes the sequence database: every distinct sequence (upper case,
// T as U) of the sets named by -sets, as FASTA records c1, c2, ...,
// with DB.names.tsv beside it naming each record's molecules.
//
// run searches each molecule of -set (or of a seeded sample of -sample
// of them: PCG seed -seed, stream 16) against the database (nhmmer
// through pipeline/search, top strand, E-value 0.001, one thread per
// search, -threads molecules at once), drops the hits to the query's
// own sequence, selects the homologs (consensus.DefaultSelect), folds
// the query and each homolog under the global-600 rule
// (ssnet.EnsembleFold{Global: 600}) and writes, per molecule:
// DIR/rows.tsv (the search's hits, the homologs kept, seconds, and the
// F1 of each candidate decoder of trial 16) and DIR/support.tsv.gz (the
// homologs' support, consensus.Support's text, for trial 17's network
// runs). It is resumable: molecules already in rows.tsv are skipped.
// -scores also writes the rows as rna-holdout -paired reads them
// (predictor CC/<candidate>, its dashes dropped: CC/w100mea2), once every molecule is done.
//
// select prints trial 16's candidates' mean F1 over DIR/rows.tsv, best
// first.
//
// fold-scores writes, into each ArchiveII fold's directory of -folds
// (those holding a baselines.tsv), scores-CC.tsv: the selected
// candidate's F1 (predictor CC/cc) of every molecule its centroid row
// scores, from -rows (an ArchiveII run's rows.tsv), and for a molecule
// the run skipped (over -max-len) the centroid's own, as registered
// before the read.
package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/contactmap/contactmap/pairnet/memcheck"
	"github.com/contactmap/contactmap/pipeline/search"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/consensus"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/ssnet"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rna-consensus db|run|select|fold-scores [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch os.Args[1] {
	case "db":
		err = writeDB(os.Args[2:])
	case "run":
		err = run(ctx, os.Args[2:])
	case "select":
		err = selectCandidates(os.Args[2:], os.Stdout)
	case "fold-scores":
		err = foldScores(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (db, run, select or fold-scores)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rna-consensus:", err)
		os.Exit(1)
	}
}

// defaultSets are the database's sets: bpRNA TR0, VL0, TS0, ArchiveII
// and the 16S training, validation and test sets.
const defaultSets = "../shared/data/bprna/TR0.dbn.gz,../shared/data/bprna/VL0.dbn.gz,../shared/data/bprna/TS0.dbn.gz,../shared/data/archiveII/archiveII.dbn.gz,data/rna/16s-finaltrain.txt,data/rna/16s-finalvalid.txt,data/rna/test/testdata.txt"

// normal is a sequence as the database holds it.
func normal(seq string) string {
	return strings.ReplaceAll(strings.ToUpper(seq), "T", "U")
}

func writeDB(args []string) error {
	fs := flag.NewFlagSet("db", flag.ExitOnError)
	sets := fs.String("sets", defaultSets, "the sets whose sequences make the database, comma-separated")
	out := fs.String("out", "", "the database's FASTA file (and OUT.names.tsv)")
	fs.Parse(args)
	if *out == "" {
		return errors.New("db: give -out")
	}
	if _, err := os.Stat(*out); err == nil {
		return fmt.Errorf("db: %s exists; not overwritten", *out)
	}
	ids := map[string]int{}
	var seqs []string
	var names [][]string
	for _, f := range strings.Split(*sets, ",") {
		mols, err := ssnet.ReadSet(f)
		if err != nil {
			return err
		}
		for _, m := range mols {
			s := normal(m.Seq)
			k, ok := ids[s]
			if !ok {
				k = len(seqs)
				ids[s] = k
				seqs = append(seqs, s)
				names = append(names, nil)
			}
			names[k] = append(names[k], m.Name)
		}
	}
	var fa, tsv strings.Builder
	tsv.WriteString("record\tlength\tmolecules\n")
	for k, s := range seqs {
		fmt.Fprintf(&fa, ">c%d\n%s\n", k+1, s)
		fmt.Fprintf(&tsv, "c%d\t%d\t%s\n", k+1, len(s), strings.Join(names[k], ","))
	}
	if err := os.WriteFile(*out, []byte(fa.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "db: %d sequences (%d distinct) in %s\n", countAll(names), len(seqs), *out)
	return os.WriteFile(*out+".names.tsv", []byte(tsv.String()), 0o644)
}

func countAll(names [][]string) int {
	n := 0
	for _, v := range names {
		n += len(v)
	}
	return n
}

// readDBIDs reads the database's FASTA into sequence -> record name.
func readDBIDs(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ids := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	name := ""
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(t, ">") {
			name = strings.Fields(t[1:] + " ")[0]
		} else if t != "" && name != "" {
			ids[normal(t)] = name
		}
	}
	return ids, sc.Err()
}

// candidate is one decoder of trial 16: w weighs the consensus Q against
// the query's own P ((1 - w) P + w Q); mea > 0 is rna.DecodeMEA's gamma,
// 0 the centroid (pairs over 0.5, rna.Decode).
type candidate struct {
	w   float64
	mea float64
}

func (c candidate) String() string {
	if c.mea == 0 {
		return fmt.Sprintf("w%d-centroid", int(100*c.w))
	}
	return fmt.Sprintf("w%d-mea%g", int(100*c.w), c.mea)
}

// candidates are trial 16's: w in {0.5, 1}, the centroid and MEA gamma
// 1, 2 and 4. The query's own centroid (w 0) is scored beside them as
// the check against rna-holdout's centroid row.
var candidates = func() []candidate {
	cs := []candidate{{0, 0}}
	for _, w := range []float64{0.5, 1} {
		for _, g := range []float64{0, 1, 2, 4} {
			cs = append(cs, candidate{w, g})
		}
	}
	return cs
}()

// rule is the ensembles' rule: global folds up to 600 nt.
var rule = ssnet.EnsembleFold{Global: 600}

func dense(l int, ps []ssnet.PairProb) []float32 {
	p := make([]float32, l*l)
	for _, q := range ps {
		p[int(q.I)*l+int(q.J)], p[int(q.J)*l+int(q.I)] = q.P, q.P
	}
	return p
}

// result is one molecule's row.
type result struct {
	name            string
	length          int
	hits, homologs  int
	searchS, foldS  float64
	f1, mcc, f1slip []float64 // per candidate
	support         []byte
	seq             string
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	db := fs.String("db", "", "the database (rna-consensus db)")
	set := fs.String("set", "", "the molecules searched and scored")
	sample := fs.Int("sample", 0, "only this many molecules of -set, drawn by a seeded shuffle (0: all)")
	seed := fs.Uint64("seed", 1, "-sample's seed (PCG stream 16)")
	out := fs.String("out", "", "output directory")
	threads := fs.Int("threads", 2, "molecules at once (one nhmmer thread and one fold thread each)")
	scores := fs.String("scores", "", "also write the rows in rna-holdout's scores format here once every molecule is done")
	maxLen := fs.Int("max-len", 600, "molecules longer than this are listed as skipped")
	fs.Parse(args)
	if *db == "" || *set == "" || *out == "" {
		return errors.New("run: give -db, -set and -out")
	}
	mols, err := ssnet.ReadSet(*set)
	if err != nil {
		return err
	}
	if *sample > 0 && *sample < len(mols) {
		r := rand.New(rand.NewPCG(*seed, 16))
		idx := r.Perm(len(mols))[:*sample]
		sort.Ints(idx)
		picked := make([]ssnet.Molecule, len(idx))
		for k, i := range idx {
			picked[k] = mols[i]
		}
		mols = picked
	}
	ids, err := readDBIDs(*db)
	if err != nil {
		return fmt.Errorf("run: database: %w", err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	rowsPath := filepath.Join(*out, "rows.tsv")
	done, err := readRows(rowsPath)
	if err != nil {
		return err
	}
	s, err := search.New(search.Options{Tool: search.Nhmmer, DB: *db, Threads: 1})
	if err != nil {
		return err
	}
	defer s.Close()
	rowsF, err := os.OpenFile(rowsPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer rowsF.Close()
	if st, _ := rowsF.Stat(); st.Size() == 0 {
		fmt.Fprintln(rowsF, rowsHeader())
	}
	supF, err := os.OpenFile(filepath.Join(*out, "support.tsv.gz"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer supF.Close()
	logF, err := os.OpenFile(filepath.Join(*out, "search.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logF.Close()

	var todo []int
	var skipped []string
	for k := range mols {
		switch {
		case done[mols[k].Name]:
		case len(mols[k].Seq) > *maxLen:
			skipped = append(skipped, fmt.Sprintf("%s (%d nt, over -max-len %d)", mols[k].Name, len(mols[k].Seq), *maxLen))
		default:
			todo = append(todo, k)
		}
	}
	// One fold at a time per thread, of the longest molecule (a homolog
	// may be a little longer: its insertions), beside the query's dense
	// maps (P, Q and each blend, float32).
	longest := 0
	for _, k := range todo {
		longest = max(longest, len(mols[k].Seq))
	}
	n := int64(longest) + 100
	need := int64(max(1, *threads)) * (fold.MemoryEstimate(fold.MethodPartition, int(n), 0) + 3*4*n*n)
	if lim, err := memcheck.Available(); err == nil && need > lim.Bytes {
		return fmt.Errorf("run: %d folds of about %d nt at once need about %d MiB, %d MiB available (%s): use fewer -threads or a lower -max-len", max(1, *threads), n, need>>20, lim.Bytes>>20, lim.Source)
	}
	fmt.Fprintf(os.Stderr, "run: %d molecules, %d done before, %d to do, %d skipped; %s\n", len(mols), len(done), len(todo), len(skipped), s.Version())
	var mu sync.Mutex
	var failed []string
	start, count := time.Now(), 0
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, *threads); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				var log strings.Builder
				r, err := one(ctx, s, &mols[k], ids, &log)
				mu.Lock()
				logF.WriteString(log.String())
				if err != nil {
					if ctx.Err() == nil {
						failed = append(failed, fmt.Sprintf("%s: %v", mols[k].Name, err))
					}
				} else {
					fmt.Fprintln(rowsF, r.row())
					gz := gzip.NewWriter(supF)
					fmt.Fprintf(gz, "%s\t%s\t%s\n", r.seq, r.name, r.support)
					gz.Close()
					count++
					if count%50 == 0 || count == len(todo) {
						fmt.Fprintf(os.Stderr, "run: %d/%d, %.0f s\n", count, len(todo), time.Since(start).Seconds())
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, k := range todo {
		if ctx.Err() != nil {
			break
		}
		select {
		case next <- k:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	for _, f := range append(skipped, failed...) {
		fmt.Fprintln(os.Stderr, "run: skipped", f)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("run: interrupted after %d molecules; rerun to go on", count)
	}
	if len(failed) > 0 {
		return fmt.Errorf("run: %d molecules failed", len(failed))
	}
	if *scores != "" {
		return writeScores(rowsPath, *scores)
	}
	return nil
}

// one searches, folds and scores one molecule.
func one(ctx context.Context, s *search.Searcher, m *ssnet.Molecule, ids map[string]string, log io.Writer) (*result, error) {
	seq := normal(m.Seq)
	t0 := time.Now()
	a, err := s.Search(ctx, search.Query{Name: "query", Seq: seq}, log)
	if err != nil {
		return nil, err
	}
	self := ids[seq]
	names, rows := a.Names[:1], a.Rows[:1]
	for k := 1; k < a.N(); k++ {
		rec := a.Names[k]
		if i := strings.LastIndexByte(rec, '/'); i > 0 {
			rec = rec[:i]
		}
		if rec != self {
			names, rows = append(names, a.Names[k]), append(rows, a.Rows[k])
		}
	}
	hs, err := consensus.Homologs(names, rows)
	if err != nil {
		return nil, err
	}
	kept := consensus.Select(hs, consensus.DefaultSelect)
	t1 := time.Now()
	l := len(seq)
	pq, err := rule.Pairs(ctx, seq, 1)
	if err != nil {
		return nil, err
	}
	sup, err := consensus.NewSupport(l)
	if err != nil {
		return nil, err
	}
	for k := range kept {
		ph, err := rule.Pairs(ctx, kept[k].Seq, 1)
		if err != nil {
			return nil, fmt.Errorf("homolog %s: %w", kept[k].Name, err)
		}
		pairs := make([]consensus.Pair, len(ph))
		for i, p := range ph {
			pairs[i] = consensus.Pair{I: int(p.I), J: int(p.J), P: float64(p.P)}
		}
		if err := sup.Add(&kept[k], pairs); err != nil {
			return nil, err
		}
	}
	p := dense(l, pq)
	q, err := sup.Consensus(p)
	if err != nil {
		return nil, err
	}
	r := &result{name: m.Name, length: l, hits: len(names) - 1, homologs: len(kept), searchS: t1.Sub(t0).Seconds(), foldS: time.Since(t1).Seconds(), seq: seq}
	for _, c := range candidates {
		b := make([]float32, l*l)
		for k := range b {
			b[k] = float32((1-c.w)*float64(p[k]) + c.w*float64(q[k]))
		}
		var pred *rna.Structure
		if c.mea == 0 {
			pred, err = rna.Decode(m.Name, m.Seq, b, 0.5)
		} else {
			pred, err = rna.DecodeMEA(m.Name, m.Seq, b, rna.DecodeOptions{Gamma: c.mea})
		}
		if err != nil {
			return nil, err
		}
		sc, sl := rna.Compare(pred, m.Structure, false), rna.Compare(pred, m.Structure, true)
		r.f1, r.mcc, r.f1slip = append(r.f1, sc.F1), append(r.mcc, sc.MCC), append(r.f1slip, sl.F1)
	}
	if r.support, err = sup.MarshalText(); err != nil {
		return nil, err
	}
	return r, nil
}

func rowsHeader() string {
	h := []string{"name", "length", "hits", "homologs", "search_s", "fold_s"}
	for _, c := range candidates {
		h = append(h, "f1:"+c.String(), "mcc:"+c.String(), "f1slip:"+c.String())
	}
	return strings.Join(h, "\t")
}

func (r *result) row() string {
	f := []string{r.name, strconv.Itoa(r.length), strconv.Itoa(r.hits), strconv.Itoa(r.homologs), fmt.Sprintf("%.3f", r.searchS), fmt.Sprintf("%.3f", r.foldS)}
	for k := range candidates {
		f = append(f, fmt.Sprintf("%.6f", r.f1[k]), fmt.Sprintf("%.6f", r.mcc[k]), fmt.Sprintf("%.6f", r.f1slip[k]))
	}
	return strings.Join(f, "\t")
}

// table reads rows.tsv: its header and rows (nil, nil where absent).
func table(path string) ([]string, [][]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	head := strings.Split(lines[0], "\t")
	if strings.Join(head, "\t") != rowsHeader() {
		return nil, nil, fmt.Errorf("%s: the header is not this build's (%d columns, want %d)", path, len(head), len(strings.Split(rowsHeader(), "\t")))
	}
	var rows [][]string
	for k, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != len(head) {
			return nil, nil, fmt.Errorf("%s line %d: %d fields, want %d (a row cut short: remove it and rerun)", path, k+2, len(f), len(head))
		}
		rows = append(rows, f)
	}
	return head, rows, nil
}

func readRows(path string) (map[string]bool, error) {
	_, rows, err := table(path)
	if err != nil {
		return nil, err
	}
	done := map[string]bool{}
	for _, r := range rows {
		if done[r[0]] {
			return nil, fmt.Errorf("%s: %s twice", path, r[0])
		}
		done[r[0]] = true
	}
	return done, nil
}

// writeScores writes rows.tsv's candidates as rna-holdout's scores file
// (predictor CC/<candidate>, its dashes dropped: CC/w100mea2).
func writeScores(rowsPath, out string) error {
	_, rows, err := table(rowsPath)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("predictor\tname\tlength\tf1\tmcc\tf1_slip\n")
	for k, c := range candidates {
		for _, r := range rows {
			fmt.Fprintf(&b, "CC/%s\t%s\t%s\t%s\t%s\t%s\n", strings.ReplaceAll(c.String(), "-", ""), r[0], r[1], r[6+3*k], r[7+3*k], r[8+3*k])
		}
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

func selectCandidates(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("select", flag.ExitOnError)
	dir := fs.String("in", "", "a run's directory")
	fs.Parse(args)
	_, rows, err := table(filepath.Join(*dir, "rows.tsv"))
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("select: no rows in %s", *dir)
	}
	type mean struct {
		c          candidate
		all, withH float64
	}
	var ms []mean
	nH := 0
	for _, r := range rows {
		if r[3] != "0" {
			nH++
		}
	}
	for k, c := range candidates {
		var m mean
		m.c = c
		for _, r := range rows {
			v, _ := strconv.ParseFloat(r[6+3*k], 64)
			m.all += v / float64(len(rows))
			if r[3] != "0" {
				m.withH += v / float64(max(nH, 1))
			}
		}
		ms = append(ms, m)
	}
	sort.SliceStable(ms, func(a, b int) bool { return ms[a].all > ms[b].all })
	fmt.Fprintf(w, "| candidate | mean F1 (%d molecules) | with a homolog (%d) |\n|---|---:|---:|\n", len(rows), nH)
	for _, m := range ms {
		fmt.Fprintf(w, "| %s | %.4f | %.4f |\n", m.c, m.all, m.withH)
	}
	return nil
}

// selected is trial 16's selected candidate (trials.md).
var selected = candidate{w: 1, mea: 2}

func foldScores(args []string) error {
	fs := flag.NewFlagSet("fold-scores", flag.ExitOnError)
	rowsPath := fs.String("rows", "", "an ArchiveII run's rows.tsv")
	folds := fs.String("folds", "experiments/rna-holdout/archiveII-folds", "the folds' directory")
	fs.Parse(args)
	_, rows, err := table(*rowsPath)
	if err != nil {
		return err
	}
	col := -1
	for k, c := range candidates {
		if c == selected {
			col = 6 + 3*k
		}
	}
	byName := map[string][]string{}
	for _, r := range rows {
		byName[r[0]] = r
	}
	dirs, err := filepath.Glob(filepath.Join(*folds, "*", "baselines.tsv"))
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return fmt.Errorf("fold-scores: no fold's baselines.tsv in %s", *folds)
	}
	for _, b := range dirs {
		data, err := os.ReadFile(b)
		if err != nil {
			return err
		}
		var out strings.Builder
		out.WriteString("predictor\tname\tlength\tf1\tmcc\tf1_slip\n")
		n, fallback := 0, 0
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
			f := strings.Split(l, "\t")
			if len(f) != 6 {
				return fmt.Errorf("%s: a row of %d fields", b, len(f))
			}
			if f[0] != "centroid" {
				continue
			}
			n++
			if r, ok := byName[f[1]]; ok {
				if r[1] != f[2] {
					return fmt.Errorf("%s: %s has %s nt, %s in %s", b, f[1], f[2], r[1], *rowsPath)
				}
				fmt.Fprintf(&out, "CC/cc\t%s\t%s\t%s\t%s\t%s\n", f[1], f[2], r[col], r[col+1], r[col+2])
				continue
			}
			if l, _ := strconv.Atoi(f[2]); l <= 600 {
				return fmt.Errorf("%s: %s (%s nt) is not in %s", b, f[1], f[2], *rowsPath)
			}
			fallback++
			fmt.Fprintf(&out, "CC/cc\t%s\t%s\t%s\t%s\t%s\n", f[1], f[2], f[3], f[4], f[5])
		}
		dst := filepath.Join(filepath.Dir(b), "scores-CC.tsv")
		if err := os.WriteFile(dst, []byte(out.String()), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "fold-scores: %s: %d molecules, %d over 600 nt scored by the centroid\n", dst, n, fallback)
	}
	return nil
}
