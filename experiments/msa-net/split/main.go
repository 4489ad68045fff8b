// Command split divides the protein families with deep alignments (the
// 102 PSICOV benchmark families of ../shared/data/psicov150 and the 40
// Pfam families of data/msa) into training, validation and test sets by
// family, for the alignment-input network of issue 31, so that no family
// and no homolog of one sits on two sides.
//
// It measures, for every pair of families, the criteria issue 31 named
// on the best local alignment of their queries (the first row of each
// alignment, gaps removed; Smith-Waterman, BLOSUM62, gaps cost 11 + k,
// package seqalign):
//
//   - "coverage": it spans at least 50% of the shorter query with at
//     least 25% of its columns identical;
//   - "long": at least 30% of its columns identical over at least 40
//     aligned residue pairs;
//   - "significant": E-value below 0.01 for the shorter query searched
//     against all the queries (Karlin-Altschul, BLAST's gapped BLOSUM62
//     parameters);
//
// and whether their alignments share a member ("shared": the same
// sequence, gaps removed, of at least 30 residues, in both). Each
// alignment criterion is also counted with one query of the pair
// shuffled (composition kept), which no homology survives. On these
// families coverage and long fire about as often on shuffled queries as
// on real ones, so only significance and shared members decide
// (DefaultRule.Decisive); report.md has the counts. The four families
// present in both sources (1CTF, 1GUU, 1T8K, 1TZV: the same protein) are
// one family each whatever the alignment says.
//
// Groups are the connected components of the homology graph (union-find);
// a group goes to one side whole. Groups are considered in the order of
// the FNV-1a 64-bit hash of their smallest member ID (ties by the ID);
// groups of Pfam-only families go to training (their structures come from
// another source, and the held-out sides are for comparison with
// published PSICOV-benchmark results); the others, in that order, fill
// the test side until it holds 20% of the families and at least 20 PSICOV
// families, then the validation side until it holds 15%, and the rest go
// to training.
//
// Each family's query is also aligned against the training chains of the
// shipped single-sequence models, sequences from SEQRES: the PISCES
// split's (seed 1, lengths 25-100, entries in data/pdb; models/cnn.scnn
// and models/scnn.scnn) and the extended set's
// (experiments/extended/sets/extended.tsv; models/ensemble). The closest
// homolog by the same rule (less the shared-member test; E-value against
// all those chains) is reported, not removed.
//
// It writes OUT/families.tsv (one row per alignment) and OUT/report.md:
//
//	go run ./experiments/msa-net/split [-out experiments/msa-net/split] [-workers 1]
package main

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/contactmap/contactmap/experiments/internal/resultfile"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/sets"
	"github.com/contactmap/contactmap/pisces"
	"github.com/contactmap/contactmap/seqalign"
)

// Sources of the families.
const (
	PSICOV = "psicov150"
	Pfam   = "pfam40"
)

// Split names, as the feature manifests write them.
const (
	Train      = features.Train
	Validation = features.Validation
	Test       = features.Test
)

// Rule holds the thresholds of the homology test.
type Rule struct {
	MinCoverage  float64 // "coverage": fraction of the shorter sequence inside the alignment...
	MinIdentity  float64 // ...with at least this fraction of identical columns
	LongIdentity float64 // "long": at least this fraction of identical columns...
	LongResidues int     // ...over at least this many aligned residue pairs
	MaxEValue    float64 // "significant": E-value below this
	MinShared    int     // "shared": member sequences (gaps removed) this long or longer are compared
	// Decisive are the criteria that make two sequences homologous; the
	// others are measured and reported only.
	Decisive Criteria
}

// DefaultRule has issue 31's thresholds. Only significance and shared
// members decide: on these queries the coverage and long criteria fire
// as often with one query shuffled as without (see report.md).
var DefaultRule = Rule{MinCoverage: 0.5, MinIdentity: 0.25, LongIdentity: 0.30, LongResidues: 40, MaxEValue: 0.01, MinShared: 30,
	Decisive: BySignificance | ByShared}

// Criteria is a set of the rule's criteria.
type Criteria uint8

// The criteria.
const (
	ByCoverage Criteria = 1 << iota
	ByLong
	BySignificance
	ByShared
)

var criterionNames = []string{"coverage", "long", "significant", "shared"}

func (c Criteria) String() string {
	var names []string
	for k, name := range criterionNames {
		if c&(1<<k) != 0 {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, "+")
}

// Match summarises the best local alignment of two sequences.
type Match struct {
	Score    int     // raw score
	Residues int     // aligned residue pairs
	Identity float64 // identical columns over all columns, gap columns included
	Coverage float64 // the alignment's span on the shorter sequence over its length
	EValue   float64 // for the shorter sequence against a database of dbLen residues
}

// align aligns a and b locally; dbLen is the length of the database the
// E-value is computed against.
func align(a, b string, dbLen int) (Match, error) {
	l, err := seqalign.AlignLocal(a, b)
	if err != nil {
		return Match{}, err
	}
	m := Match{Score: l.Score, Residues: len(l.Pairs), Identity: l.Identity(), EValue: math.Inf(1)}
	side, short := 0, len(a)
	if len(b) < len(a) {
		side, short = 1, len(b)
	}
	if len(l.Pairs) > 0 {
		first, last := l.Pairs[0][side], l.Pairs[len(l.Pairs)-1][side]
		m.Coverage = float64(last-first+1) / float64(short)
		m.EValue = l.EValue(short, dbLen)
	}
	return m, nil
}

// Classify returns the alignment criteria m meets (never ByShared).
func (r Rule) Classify(m Match) Criteria {
	var c Criteria
	if m.Coverage >= r.MinCoverage && m.Identity >= r.MinIdentity {
		c |= ByCoverage
	}
	if m.Identity >= r.LongIdentity && m.Residues >= r.LongResidues {
		c |= ByLong
	}
	if m.EValue < r.MaxEValue {
		c |= BySignificance
	}
	return c
}

// Test aligns a and b locally (dbLen: the length of the database the
// E-value is for) and returns the alignment criteria it meets.
func (r Rule) Test(a, b string, dbLen int) (Criteria, Match, error) {
	m, err := align(a, b, dbLen)
	if err != nil {
		return 0, Match{}, err
	}
	return r.Classify(m), m, nil
}

// Homologous reports whether criteria c make two sequences homologous.
func (r Rule) Homologous(c Criteria) bool { return c&r.Decisive != 0 }

// family is one alignment file.
type family struct {
	id, source      string
	path, structure string
	query           string // the first row, gaps removed
	n               int    // sequences
	dupOf           int    // index of the psicov150 row of the same protein, or -1
	members         []uint64
}

// l is the query's length.
func (f *family) l() int { return len(f.query) }

// memberHashes returns the sorted distinct FNV-1a hashes of the rows,
// gaps removed, that keep at least minLen residues.
func memberHashes(rows [][]byte, minLen int) []uint64 {
	var hs []uint64
	buf := make([]byte, 0, 512)
	for _, r := range rows {
		buf = buf[:0]
		for _, c := range r {
			if c != '-' {
				buf = append(buf, c)
			}
		}
		if len(buf) < minLen {
			continue
		}
		h := fnv.New64a()
		h.Write(buf)
		hs = append(hs, h.Sum64())
	}
	slices.Sort(hs)
	return slices.Compact(hs)
}

// sharedCount counts the values in both sorted, distinct slices.
func sharedCount(a, b []uint64) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// proteinKey names the protein of a family ID: "1ctfA" and "1CTF_A" are
// both "1CTF_A".
func proteinKey(id string) string {
	if len(id) < 5 {
		return strings.ToUpper(id)
	}
	return strings.ToUpper(id[:4]) + "_" + strings.TrimPrefix(id[4:], "_")
}

// loadFamilies reads the PSICOV families (dir/aln/ID.aln.gz,
// dir/pdb/ID.pdb.gz) and the Pfam ones (dir/ID.fasta, dir/ID.pdb), in
// that order, each sorted by ID, and links the Pfam rows of a protein
// that is also a PSICOV family to its PSICOV row.
func loadFamilies(psicovDir, pfamDir string, minShared int) ([]family, error) {
	type source struct {
		name, glob, suffix string
		structure          func(id string) string
	}
	srcs := []source{
		{PSICOV, filepath.Join(psicovDir, "aln", "*.aln.gz"), ".aln.gz", func(id string) string { return filepath.Join(psicovDir, "pdb", id+".pdb.gz") }},
		{Pfam, filepath.Join(pfamDir, "*.fasta"), ".fasta", func(id string) string { return filepath.Join(pfamDir, id+".pdb") }},
	}
	var fams []family
	byProtein := map[string]int{}
	for _, s := range srcs {
		paths, err := filepath.Glob(s.glob)
		if err != nil {
			return nil, err
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("no alignments match %s", s.glob)
		}
		slices.Sort(paths)
		for _, p := range paths {
			a, err := msa.ReadFile(p)
			if err != nil {
				return nil, err
			}
			id := strings.TrimSuffix(filepath.Base(p), s.suffix)
			f := family{id: id, source: s.name, path: p, structure: s.structure(id),
				query: strings.ReplaceAll(a.Query(), "-", ""), n: a.N(), dupOf: -1,
				members: memberHashes(a.Rows, minShared)}
			if _, err := os.Stat(f.structure); err != nil {
				return nil, fmt.Errorf("family %s: %w", id, err)
			}
			key := proteinKey(id)
			if k, ok := byProtein[key]; ok && fams[k].source != s.name {
				f.dupOf = k
			} else {
				byProtein[key] = len(fams)
			}
			fams = append(fams, f)
		}
	}
	return fams, nil
}

// pair is a pair of families, tested.
type pair struct {
	a, b     int
	criteria Criteria
	match    Match
	shared   int // member sequences in both alignments
}

// shuffled returns s with its letters permuted by rng.
func shuffled(s string, rng *rand.Rand) string {
	b := []byte(s)
	rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
	return string(b)
}

// parallel runs job(0..n-1) on workers goroutines.
func parallel(n, workers int, job func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = job(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// pairsOf aligns the queries of every pair of families and compares
// their members; control[k] is the alignment of pairs[k]'s first query
// with its second one shuffled (seeded, so reproducible), which no real
// homology survives.
func pairsOf(fams []family, r Rule, workers int) (pairs []pair, control []Match, err error) {
	dbLen := 0
	for i := range fams {
		dbLen += fams[i].l()
	}
	rng := rand.New(rand.NewPCG(31, 3))
	shuf := make([]string, len(fams))
	for i := range fams {
		shuf[i] = shuffled(fams[i].query, rng)
	}
	rows := make([][]pair, len(fams))
	ctrl := make([][]Match, len(fams))
	err = parallel(len(fams), workers, func(i int) error {
		for j := i + 1; j < len(fams); j++ {
			c, m, err := r.Test(fams[i].query, fams[j].query, dbLen)
			if err != nil {
				return fmt.Errorf("aligning %s and %s: %w", fams[i].id, fams[j].id, err)
			}
			shared := sharedCount(fams[i].members, fams[j].members)
			if shared > 0 {
				c |= ByShared
			}
			rows[i] = append(rows[i], pair{a: i, b: j, criteria: c, match: m, shared: shared})
			cm, err := align(fams[i].query, shuf[j], dbLen)
			if err != nil {
				return fmt.Errorf("aligning %s and shuffled %s: %w", fams[i].id, fams[j].id, err)
			}
			ctrl[i] = append(ctrl[i], cm)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for i := range fams {
		pairs = append(pairs, rows[i]...)
		control = append(control, ctrl[i]...)
	}
	return pairs, control, nil
}

// unionFind is a disjoint-set forest over 0..n-1.
type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

// union joins the sets of i and j under the smaller root.
func (u unionFind) union(i, j int) {
	ri, rj := u.find(i), u.find(j)
	if ri > rj {
		ri, rj = rj, ri
	}
	u[rj] = ri
}

// components returns the connected components of the graph on 0..n-1
// with the given edges: each sorted, ordered by their smallest vertex.
func components(n int, edges [][2]int) [][]int {
	u := newUnionFind(n)
	for _, e := range edges {
		u.union(e[0], e[1])
	}
	byRoot := map[int]int{}
	var out [][]int
	for i := range n {
		r := u.find(i)
		k, ok := byRoot[r]
		if !ok {
			k = len(out)
			byRoot[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], i)
	}
	return out
}

// group is a connected component of the homology graph.
type group struct {
	key      string // smallest member ID (byte order)
	members  []int  // rows of the families
	families int    // distinct families: a protein in both sources counts once
	psicov   int    // distinct PSICOV families
}

// groupsOf builds the groups of the families joined by the edges and by
// the duplicate links.
func groupsOf(fams []family, edges [][2]int) []group {
	for i, f := range fams {
		if f.dupOf >= 0 {
			edges = append(edges, [2]int{f.dupOf, i})
		}
	}
	var gs []group
	for _, members := range components(len(fams), edges) {
		g := group{members: members, key: fams[members[0]].id}
		for _, m := range members {
			g.key = min(g.key, fams[m].id)
			if fams[m].dupOf < 0 {
				g.families++
				if fams[m].source == PSICOV {
					g.psicov++
				}
			}
		}
		gs = append(gs, g)
	}
	return gs
}

// edgesOf returns the pairs whose criteria satisfy keep.
func edgesOf(pairs []pair, keep func(Criteria) bool) [][2]int {
	var edges [][2]int
	for _, p := range pairs {
		if keep(p.criteria) {
			edges = append(edges, [2]int{p.a, p.b})
		}
	}
	return edges
}

// Targets are the sizes assign aims for.
type Targets struct {
	Test, Validation float64 // fractions of all families
	MinTestPSICOV    int     // PSICOV families the test side must hold at least
}

// DefaultTargets are issue 31's.
var DefaultTargets = Targets{Test: 0.20, Validation: 0.15, MinTestPSICOV: 20}

// hashKey is the FNV-1a 64-bit hash of s.
func hashKey(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// order returns the indices of gs sorted by the hash of their keys (ties
// by the key).
func order(gs []group) []int {
	idx := make([]int, len(gs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		return cmp.Or(cmp.Compare(hashKey(gs[i].key), hashKey(gs[j].key)), strings.Compare(gs[i].key, gs[j].key))
	})
	return idx
}

// assign returns each group's split: groups without a PSICOV family go
// to training; the others, in order(gs), to test until it holds
// round(t.Test × families) families and t.MinTestPSICOV PSICOV ones, then
// to validation until it holds round(t.Validation × families), then to
// training.
func assign(gs []group, t Targets) []string {
	total := 0
	for _, g := range gs {
		total += g.families
	}
	wantTest := int(math.Round(t.Test * float64(total)))
	wantValid := int(math.Round(t.Validation * float64(total)))
	splits := make([]string, len(gs))
	test, testPSICOV, valid := 0, 0, 0
	for _, i := range order(gs) {
		g := gs[i]
		switch {
		case g.psicov == 0:
			splits[i] = Train
		case test < wantTest || testPSICOV < t.MinTestPSICOV:
			splits[i] = Test
			test += g.families
			testPSICOV += g.psicov
		case valid < wantValid:
			splits[i] = Validation
			valid += g.families
		default:
			splits[i] = Train
		}
	}
	return splits
}

// ref is a training chain of a shipped model.
type ref struct {
	id, seq string
	pisces  bool // in the PISCES split's training chains (cnn, scnn)
	ext     bool // in the extended set's training chains (ensemble)
}

func (r *ref) sets() string {
	switch {
	case r.pisces && r.ext:
		return "PISCES+extended"
	case r.pisces:
		return "PISCES"
	}
	return "extended"
}

// loadRefs reads the training chains of the PISCES split (list entries of
// length 25-100 whose entry is in pdbDir and whose PDB code SplitOf puts
// in training with seed) and of the extended chain-set file, sequences
// from SEQRES, sorted by ID.
func loadRefs(list, pdbDir, chainSet string, seed uint64) ([]ref, error) {
	type chainKey struct{ file, chain string }
	byID := map[string]*ref{}
	where := map[string]chainKey{}
	entries, err := pisces.ReadFile(list)
	if err != nil {
		return nil, err
	}
	mirror := pdb.Mirror{Dir: pdbDir}
	for _, e := range (pisces.Filter{MinLength: 25, MaxLength: 100}).Apply(entries) {
		if features.SplitOf(e.PDB, seed) != Train {
			continue
		}
		file, err := mirror.Find(e.PDB)
		if errors.Is(err, pdb.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		id := e.PDB + "_" + e.Chain
		byID[id] = &ref{id: id, pisces: true}
		where[id] = chainKey{file, e.Chain}
	}
	ext, err := sets.ReadFile(chainSet)
	if err != nil {
		return nil, err
	}
	for _, e := range ext {
		if e.Split != sets.Train {
			continue
		}
		if r, ok := byID[e.ID]; ok {
			r.ext = true
			continue
		}
		byID[e.ID] = &ref{id: e.ID, ext: true}
		where[e.ID] = chainKey{e.File, e.Chain}
	}
	structures := map[string]*pdb.Structure{}
	var refs []ref
	for id, r := range byID {
		k := where[id]
		s, ok := structures[k.file]
		if !ok {
			if s, err = pdb.ReadFile(k.file); err != nil {
				return nil, err
			}
			structures[k.file] = s
		}
		c := s.Chain(k.chain)
		if c == nil || !c.IsProtein() {
			continue // make features has no features for it either
		}
		r.seq = c.Sequence()
		refs = append(refs, *r)
	}
	slices.SortFunc(refs, func(a, b ref) int { return strings.Compare(a.id, b.id) })
	return refs, nil
}

// hit is a family's closest training chain.
type hit struct {
	ref      int // index in refs of the homologous chain with the highest score, -1 if none
	criteria Criteria
	match    Match
	any      Criteria // the criteria some chain meets
	control  Criteria // the criteria some chain meets with the query shuffled
}

// trainingHomologs aligns each family's query, and the query shuffled
// (seeded), against every reference chain.
func trainingHomologs(fams []family, refs []ref, r Rule, workers int, progress func(done int)) ([]hit, error) {
	dbLen := 0
	for _, c := range refs {
		dbLen += len(c.seq)
	}
	rng := rand.New(rand.NewPCG(31, 4))
	shuf := make([]string, len(fams))
	for i := range fams {
		shuf[i] = shuffled(fams[i].query, rng)
	}
	hits := make([]hit, len(fams))
	var mu sync.Mutex
	done := 0
	err := parallel(len(fams), workers, func(i int) error {
		h := hit{ref: -1}
		for k := range refs {
			c, m, err := r.Test(fams[i].query, refs[k].seq, dbLen)
			if err != nil {
				return fmt.Errorf("aligning %s and %s: %w", fams[i].id, refs[k].id, err)
			}
			h.any |= c
			if r.Homologous(c) && (h.ref < 0 || m.Score > h.match.Score) {
				h.ref, h.criteria, h.match = k, c, m
			}
			cc, _, err := r.Test(shuf[i], refs[k].seq, dbLen)
			if err != nil {
				return fmt.Errorf("aligning shuffled %s and %s: %w", fams[i].id, refs[k].id, err)
			}
			h.control |= cc
		}
		hits[i] = h
		mu.Lock()
		done++
		if progress != nil {
			progress(done)
		}
		mu.Unlock()
		return nil
	})
	return hits, err
}

func main() {
	psicovDir := flag.String("psicov", "../shared/data/psicov150", "PSICOV families: aln/ID.aln.gz and pdb/ID.pdb.gz")
	pfamDir := flag.String("pfam", "data/msa", "Pfam families: ID.fasta and ID.pdb")
	list := flag.String("list", "data/pisces/cullpdb_pc25_res3.0_R1.0_d180920_chains14051.gz", "PISCES list of the shipped cnn and scnn models' split")
	pdbDir := flag.String("pdb-dir", "data/pdb", "PDB mirror of the PISCES split")
	seed := flag.Uint64("seed", 1, "seed of the PISCES split (make features' default)")
	chainSet := flag.String("chains", "experiments/extended/sets/extended.tsv", "chain-set file of the shipped ensemble's training set")
	out := flag.String("out", "experiments/msa-net/split", "directory for families.tsv and report.md")
	workers := flag.Int("workers", 1, "goroutines aligning")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("split: ")
	start := time.Now()
	elapsed := func() time.Duration { return time.Since(start).Round(time.Second) }

	res := &result{rule: DefaultRule, targets: DefaultTargets,
		psicovDir: *psicovDir, pfamDir: *pfamDir, list: *list, chainSet: *chainSet, seed: *seed}
	var err error
	if res.fams, err = loadFamilies(*psicovDir, *pfamDir, res.rule.MinShared); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d alignments read (%s)", len(res.fams), elapsed())
	if res.pairs, res.control, err = pairsOf(res.fams, res.rule, *workers); err != nil {
		log.Fatal(err)
	}
	res.groups = groupsOf(res.fams, edgesOf(res.pairs, res.rule.Homologous))
	res.splits = assign(res.groups, res.targets)
	log.Printf("%d pairs aligned: %d groups (%s)", len(res.pairs), len(res.groups), elapsed())

	if res.refs, err = loadRefs(*list, *pdbDir, *chainSet, *seed); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d training chains of the shipped models (%s)", len(res.refs), elapsed())
	res.hits, err = trainingHomologs(res.fams, res.refs, res.rule, *workers, func(done int) {
		if done%20 == 0 || done == len(res.fams) {
			log.Printf("  %d of %d families against them (%s)", done, len(res.fams), elapsed())
		}
	})
	if err != nil {
		log.Fatal(err)
	}

	res.index()
	if err := resultfile.Write(filepath.Join(*out, "families.tsv"), res.writeTSV); err != nil {
		log.Fatal(err)
	}
	if err := resultfile.Write(filepath.Join(*out, "report.md"), res.writeReport); err != nil {
		log.Fatal(err)
	}
	for _, s := range []string{Train, Validation, Test} {
		c := res.count(s)
		log.Printf("%-10s %3d families (%d PSICOV, %d Pfam-only) in %d groups", s, c.families, c.psicov, c.pfam, c.groups)
	}
	log.Printf("done in %s", elapsed())
}

// result is everything the outputs are written from.
type result struct {
	rule    Rule
	targets Targets

	psicovDir, pfamDir, list, chainSet string
	seed                               uint64

	fams    []family
	pairs   []pair   // every pair of rows
	control []Match  // per pair: the first query against the second one shuffled
	groups  []group  // by rule.Homologous
	splits  []string // per group
	refs    []ref
	hits    []hit // per family

	groupOf []int    // per family: index in groups
	gid     []string // per group: its name, g1... (zero-padded) in assignment order
}

// index numbers the groups in the order they were assigned and maps
// each family to its group.
func (r *result) index() {
	r.groupOf = make([]int, len(r.fams))
	r.gid = make([]string, len(r.groups))
	width := len(fmt.Sprint(len(r.groups)))
	for n, i := range order(r.groups) {
		r.gid[i] = fmt.Sprintf("g%0*d", width, n+1)
		for _, m := range r.groups[i].members {
			r.groupOf[m] = i
		}
	}
}

func (r *result) split(f int) string { return r.splits[r.groupOf[f]] }

func (r *result) writeTSV(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("family\tsource\tpath\tstructure\tL\tN\tgroup\tsplit\tpisces_homolog\n")
	for i, f := range r.fams {
		h := "-"
		if r.hits[i].ref >= 0 {
			h = r.refs[r.hits[i].ref].id
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", f.id, f.source, f.path, f.structure, f.l(), f.n, r.gid[r.groupOf[i]], r.split(i), h)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// sideCount summarises one side of the split.
type sideCount struct {
	families, psicov, pfam, rows, groups int
	residues, sequences                  int
	withHomolog                          int // families with a homologous training chain
}

func (c *sideCount) add(d sideCount) {
	c.families += d.families
	c.psicov += d.psicov
	c.pfam += d.pfam
	c.rows += d.rows
	c.groups += d.groups
	c.residues += d.residues
	c.sequences += d.sequences
	c.withHomolog += d.withHomolog
}

// count summarises a side; a duplicated protein counts once, as its
// PSICOV row.
func (r *result) count(split string) sideCount {
	var c sideCount
	for i := range r.groups {
		if r.splits[i] == split {
			c.groups++
		}
	}
	for i, f := range r.fams {
		if r.split(i) != split {
			continue
		}
		c.rows++
		if f.dupOf >= 0 {
			continue
		}
		c.families++
		c.residues += f.l()
		c.sequences += f.n
		if f.source == PSICOV {
			c.psicov++
		} else {
			c.pfam++
		}
		if r.hasHomolog(i) {
			c.withHomolog++
		}
	}
	return c
}

// twin returns the other row of family i's protein, or -1.
func (r *result) twin(i int) int {
	if d := r.fams[i].dupOf; d >= 0 {
		return d
	}
	for j, f := range r.fams {
		if f.dupOf == i {
			return j
		}
	}
	return -1
}

// hasHomolog reports whether family i, or its other row, has a
// homologous training chain.
func (r *result) hasHomolog(i int) bool {
	t := r.twin(i)
	return r.hits[i].ref >= 0 || t >= 0 && r.hits[t].ref >= 0
}

// name is a family's ID, with its other row's after "=".
func (r *result) name(i int) string {
	if t := r.twin(i); t >= 0 {
		return r.fams[i].id + " = " + r.fams[t].id
	}
	return r.fams[i].id
}

// dupCount is the number of rows that repeat a PSICOV family.
func (r *result) dupCount() int { return len(r.fams) - r.distinct() }

// distinct is the number of families, a duplicated protein once.
func (r *result) distinct() int {
	n := 0
	for _, f := range r.fams {
		if f.dupOf < 0 {
			n++
		}
	}
	return n
}

func (r *result) dbLen() int {
	n := 0
	for i := range r.fams {
		n += r.fams[i].l()
	}
	return n
}

func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }

func evalue(e float64) string {
	if math.IsInf(e, 1) {
		return "-"
	}
	return fmt.Sprintf("%.2g", e)
}

// calibration is a condition on an alignment, counted on the real pairs
// and the shuffled controls.
type calibration struct {
	name string
	cond func(Match) bool
}

func (r *result) calibrations() []calibration {
	rule := r.rule
	out := []calibration{
		{fmt.Sprintf("coverage: span >= %s of the shorter query, >= %s identical", pct(rule.MinCoverage), pct(rule.MinIdentity)),
			func(m Match) bool { return rule.Classify(m)&ByCoverage != 0 }},
		{fmt.Sprintf("long: >= %s identical over >= %d aligned pairs", pct(rule.LongIdentity), rule.LongResidues),
			func(m Match) bool { return rule.Classify(m)&ByLong != 0 }},
		{"coverage or long, and E < 0.1", func(m Match) bool { return rule.Classify(m)&(ByCoverage|ByLong) != 0 && m.EValue < 0.1 }},
	}
	for _, e := range []float64{1, 0.1, rule.MaxEValue, rule.MaxEValue / 10} {
		name := fmt.Sprintf("E < %g", e)
		if e == rule.MaxEValue {
			name = "significant: " + name
		}
		out = append(out, calibration{name, func(m Match) bool { return m.EValue < e }})
	}
	return out
}

func (r *result) writeReport(w io.Writer) error {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	t := r.targets
	families := r.distinct()
	nPSICOV := 0
	var dups []string
	for _, f := range r.fams {
		if f.dupOf < 0 && f.source == PSICOV {
			nPSICOV++
		}
		if f.dupOf >= 0 {
			dups = append(dups, r.name(f.dupOf))
		}
	}

	p("# Family split of the deep-alignment families (issue 31, part 3)\n\n")
	p("Written by `experiments/msa-net/split/main.go` (its package comment states the\n")
	p("method; `main_test.go` tests the grouping, the assignment and the rule). Rerun from\n")
	p("the repository root (about 2 minutes on one core, most of it the training-chain check):\n\n")
	p("```sh\ngo run ./experiments/msa-net/split -out experiments/msa-net/split\n```\n\n")
	p("Inputs: %d alignments: the PSICOV families of `%s` (`aln/ID.aln.gz`,\n", len(r.fams), r.psicovDir)
	p("structures `pdb/ID.pdb.gz`) and the Pfam families of `%s` (`ID.fasta`, `ID.pdb`; the\n", r.pfamDir)
	p("repository's copy of the shared `msa/`). %d proteins are in both (%s):\n", len(dups), strings.Join(dups, ", "))
	p("each counts as one family, on its PSICOV row's side, and both rows are in\n")
	p("`families.tsv` with the same group and split. So **%d families**: %d PSICOV, %d\n", families, nPSICOV, families-nPSICOV)
	p("Pfam-only. A family's query is its alignment's first row, gaps removed.\n\n")

	r.writeRule(p)
	r.writeGroups(p)

	p("## Assignment\n\n")
	p("Deterministic, no random seed: groups are ordered by the FNV-1a 64-bit hash\n")
	p("(Go's `hash/fnv`) of their smallest member ID (byte order, so `1AQT_A` < `1aapA`;\n")
	p("ties by the ID) and named %s, %s, ... in that order. Groups without a PSICOV\n", r.gid[order(r.groups)[0]], r.gid[order(r.groups)[1]])
	p("family (Pfam-only) go to training: their structures come from another source,\n")
	p("and the held-out sides are for comparison with published PSICOV-benchmark\n")
	p("results. The others, in that order, go to test until it holds round(%.2f x %d) =\n", t.Test, families)
	p("%d families and at least %d PSICOV families, then to validation until it holds\n", int(math.Round(t.Test*float64(families))), t.MinTestPSICOV)
	p("round(%.2f x %d) = %d families, then to training. A group goes whole, so a side\n", t.Validation, families, int(math.Round(t.Validation*float64(families))))
	p("can overshoot by one group.\n\n")
	p("| split | families | PSICOV | Pfam-only | rows | groups | residues (sum of L) | sequences | with a training-chain homolog |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var total sideCount
	for _, s := range []string{Train, Validation, Test} {
		c := r.count(s)
		total.add(c)
		p("| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", s, c.families, c.psicov, c.pfam, c.rows, c.groups, c.residues, c.sequences, c.withHomolog)
	}
	c := total
	p("| all | %d | %d | %d | %d | %d | %d | %d | %d |\n\n", c.families, c.psicov, c.pfam, c.rows, c.groups, c.residues, c.sequences, c.withHomolog)
	p("(residues and sequences over distinct families: a duplicated protein's PSICOV row.)\n\n")
	for _, s := range []string{Test, Validation, Train} {
		var ids []string
		for i, f := range r.fams {
			if f.dupOf < 0 && r.split(i) == s {
				ids = append(ids, "`"+r.name(i)+"`")
			}
		}
		p("**%s** (%d): %s\n\n", s, len(ids), strings.Join(ids, ", "))
	}

	r.writeTrainingCheck(p)
	r.writeLimits(p)
	_, err := w.Write(b.Bytes())
	return err
}

func (r *result) writeRule(p func(string, ...any)) {
	rule := r.rule
	p("## Homology rule\n\n")
	p("Issue 31 asked for two families to count as homologous when the best local\n")
	p("alignment of their queries (Smith-Waterman, BLOSUM62, a gap of k residues costs\n")
	p("11 + k: `seqalign.AlignLocal`, biogo) meets one of\n\n")
	p("- **coverage**: its span on the shorter query is >= %s of that query and >= %s\n", pct(rule.MinCoverage), pct(rule.MinIdentity))
	p("  of its columns (gap columns included) are identical;\n")
	p("- **long**: >= %s identical columns over >= %d aligned residue pairs;\n", pct(rule.LongIdentity), rule.LongResidues)
	p("- **significant**: E-value < %g (Karlin-Altschul with BLAST's gapped BLOSUM62\n", rule.MaxEValue)
	p("  parameters, lambda 0.267, K 0.041, no length correction; the shorter query\n")
	p("  searched against all %d queries, %d residues);\n\n", len(r.fams), r.dbLen())
	p("or when their alignments share a member (**shared**): an identical sequence of\n")
	p(">= %d residues, gaps removed (over its query's columns), in both (compared by\n", rule.MinShared)
	p("FNV-1a 64-bit hashes of the rows).\n\n")
	p("Each alignment criterion was also counted on a control: the first query of each\n")
	p("pair against the second one shuffled (same letters and length, seeded PCG),\n")
	p("which keeps no homology, so its count is the criterion's chance rate. Of the\n")
	p("%d pairs of alignments:\n\n", len(r.pairs))
	p("| condition on the query alignment | real pairs | shuffled control |\n|---|---:|---:|\n")
	for _, c := range r.calibrations() {
		real, ctrl := 0, 0
		for k := range r.pairs {
			if c.cond(r.pairs[k].match) {
				real++
			}
			if c.cond(r.control[k]) {
				ctrl++
			}
		}
		p("| %s | %d | %d |\n", c.name, real, ctrl)
	}
	shared := 0
	for _, pr := range r.pairs {
		if pr.criteria&ByShared != 0 {
			shared++
		}
	}
	p("| shared member (not an alignment) | %d | n/a |\n\n", shared)
	asked := groupsOf(r.fams, edgesOf(r.pairs, func(c Criteria) bool { return c != 0 }))
	largest := 0
	for _, g := range asked {
		largest = max(largest, g.families)
	}
	p("**The coverage and long criteria fire about as often on shuffled queries as on\n")
	p("real ones**: they measure chance local alignments (twilight-zone identity over a\n")
	p("few dozen residues), not homology. With them the homology graph has one\n")
	p("component of %d of the %d families, and no split is possible. Significance\n", largest, r.distinct())
	p("separates: no shuffled pair reaches E < %g. So the rule used is\n\n", rule.MaxEValue)
	p("> two families are homologous when their queries' best local alignment has\n")
	p("> E < %g (against all the queries), or when their alignments share a member\n", rule.MaxEValue)
	p("> sequence of >= %d residues; the proteins in both sources are joined\n", rule.MinShared)
	p("> whatever the alignment says.\n\n")
	found := 0
	for _, pr := range r.pairs {
		if r.fams[pr.b].dupOf == pr.a && rule.Homologous(pr.criteria) {
			found++
		}
	}
	p("(The alignment finds %d of the %d proteins in both sources by itself.)\n\n", found, r.dupCount())
	p("The coverage and long criteria are still measured and listed below. Pairs that\n")
	p("are homologous by the rule used (%d; identity over the alignment's columns, coverage\n", len(edgesOf(r.pairs, rule.Homologous)))
	p("of the shorter query, shared = member sequences in both alignments):\n\n")
	p("| family | family | criteria met | score | identity | aligned pairs | coverage | E-value | shared members |\n")
	p("|---|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, pr := range r.pairs {
		if !rule.Homologous(pr.criteria) {
			continue
		}
		m := pr.match
		p("| %s | %s | %s | %d | %s | %d | %s | %s | %d |\n", r.fams[pr.a].id, r.fams[pr.b].id, pr.criteria, m.Score, pct(m.Identity), m.Residues, pct(m.Coverage), evalue(m.EValue), pr.shared)
	}
	p("\n")
}

func (r *result) writeGroups(p func(string, ...any)) {
	multi := 0
	for _, g := range r.groups {
		if len(g.members) > 1 {
			multi++
		}
	}
	p("## Groups\n\n")
	p("Groups are the connected components of the homology graph (union-find over the\n")
	p("pairs above and the duplicated proteins): %d groups for %d families (%d\n", len(r.groups), r.distinct(), len(r.fams))
	p("alignments). The %d with more than one alignment:\n\n", multi)
	p("| group | split | members |\n|---|---|---|\n")
	for _, i := range order(r.groups) {
		g := r.groups[i]
		if len(g.members) < 2 {
			continue
		}
		var ids []string
		for _, m := range g.members {
			ids = append(ids, r.fams[m].id)
		}
		p("| %s | %s | %s |\n", r.gid[i], r.splits[i], strings.Join(ids, ", "))
	}
	p("\n")
}

func (r *result) writeTrainingCheck(p func(string, ...any)) {
	nP, nE, both, refLen := 0, 0, 0, 0
	for _, c := range r.refs {
		refLen += len(c.seq)
		if c.pisces {
			nP++
		}
		if c.ext {
			nE++
		}
		if c.pisces && c.ext {
			both++
		}
	}
	p("## Training chains of the shipped single-sequence models\n\n")
	p("Each alignment's query was aligned against the %d training chains of the\n", len(r.refs))
	p("shipped protein models, sequences from SEQRES: %d of the PISCES split (`%s`,\n", nP, r.list)
	p("lengths 25-100, entries in the mirror, split seed %d: `models/cnn.scnn` and\n", r.seed)
	p("`models/scnn.scnn`; a few more than the 549 that have features, as make features\n")
	p("also drops chains it cannot label) and %d of the extended set (`%s`:\n", nE, r.chainSet)
	p("`models/ensemble`, the default); %d are in both. Same rule, less the\n", both)
	p("shared-member test, with the E-value of the query against all these chains\n")
	p("(%d residues). `pisces_homolog` in `families.tsv` is the homologous chain with\n", refLen)
	p("the highest score, `-` if none. Nothing is dropped for it. Alignments with a\n")
	p("chain meeting each criterion (the control: the query shuffled):\n\n")
	p("| criterion | alignments | shuffled control |\n|---|---:|---:|\n")
	for k, name := range criterionNames[:3] {
		c := Criteria(1 << k)
		real, ctrl := 0, 0
		for _, h := range r.hits {
			if h.any&c != 0 {
				real++
			}
			if h.control&c != 0 {
				ctrl++
			}
		}
		p("| %s | %d | %d |\n", name, real, ctrl)
	}
	withHit, distinct := 0, 0
	for i, f := range r.fams {
		if r.hits[i].ref >= 0 {
			withHit++
		}
		if f.dupOf < 0 && r.hasHomolog(i) {
			distinct++
		}
	}
	test := r.count(Test)
	p("\n**%d of %d alignments (%d of %d families) have a homologous training chain**\n", withHit, len(r.fams), distinct, r.distinct())
	p("by the rule used, most of them the same protein (100%% identical); per side in\n")
	p("the table above. It does not touch the split (the MSA network does not train on\n")
	p("those chains), but %d of the %d test families were seen, or a close homolog was,\n", test.withHomolog, test.families)
	p("by the shipped single-sequence models: compare with them on the others, or say so.\n\n")
	if withHit == 0 {
		return
	}
	p("| family | split | chain | training set | criteria met | score | identity | aligned pairs | coverage | E-value |\n")
	p("|---|---|---|---|---|---:|---:|---:|---:|---:|\n")
	for i, f := range r.fams {
		h := r.hits[i]
		if h.ref < 0 {
			continue
		}
		c, m := r.refs[h.ref], h.match
		p("| %s | %s | %s | %s | %s | %d | %s | %d | %s | %s |\n", f.id, r.split(i), c.id, c.sets(), h.criteria, m.Score, pct(m.Identity), m.Residues, pct(m.Coverage), evalue(m.EValue))
	}
	p("\n")
}

func (r *result) writeLimits(p func(string, ...any)) {
	p("## Limits\n\n")
	p("The check is by sequence: a pairwise alignment of the queries finds homologs\n")
	p("down to roughly 25-30%% identity over a domain, not remote ones (the same fold or\n")
	p("superfamily without significant sequence similarity), which can still sit on two\n")
	p("sides. The shared-member test reaches a little further (it alone joins a pair\n")
	p("above). A profile-profile comparison (HHsearch) or the queries against each\n")
	p("other's members would be more sensitive; neither was run (CPU). The E-values\n")
	p("have no edge correction and BLAST's gapped parameters; the shuffled control\n")
	p("is what supports the 0.01 threshold here.\n")
}
