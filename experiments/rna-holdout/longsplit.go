package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/rna/homology"
)

// longLen is the length above which a molecule counts as long in
// split2's rule (trials.md, trial 10): the by-length tables' first bin
// of the folds' loss.
const longLen = 200

// clusterRow is a row of clusters.tsv.
type clusterRow struct {
	set, split string
	cluster    int
}

// readClusters reads clusters.tsv: name -> row, for the clustering set's
// rows (TR0 and the 16S sets; VL0, TS0 and ArchiveII rows name the
// cluster of a best link and are left out).
func readClusters(path string) (map[string]clusterRow, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]clusterRow{}
	for k, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if k == 0 {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("%s line %d: %d fields, want 5", path, k+1, len(f))
		}
		if f[1] != "TR0" && !strings.HasPrefix(f[1], "16S") {
			continue
		}
		c, err := strconv.Atoi(f[2])
		if err != nil || c < 1 {
			return nil, fmt.Errorf("%s line %d: cluster %q", path, k+1, f[2])
		}
		if _, dup := out[f[0]]; dup {
			return nil, fmt.Errorf("%s line %d: %s a second time", path, k+1, f[0])
		}
		out[f[0]] = clusterRow{set: f[1], split: f[4], cluster: c}
	}
	return out, nil
}

// longSplit writes split2 into dir (trials.md, trial 10): the first
// split's validation molecules plus whole training clusters with a
// molecule of more than longLen bases, drawn in a seeded order (PCG
// -seed, stream 3) among the clusters of at most -max-cluster members
// that are all TR0 training molecules, until the drawn long molecules
// number -long-want; the drawn molecules that link to one of split2's
// training molecules under a fresh search are dropped. The report goes
// to w.
func longSplit(w io.Writer, dir string) error {
	rows, err := readClusters(filepath.Join(*outFlag, "clusters.tsv"))
	if err != nil {
		return err
	}
	refs, nTR0, err := readRefs()
	if err != nil {
		return err
	}
	members := map[int][]int{}
	for i, m := range refs {
		r, ok := rows[m.name]
		if !ok {
			return fmt.Errorf("%s: not in clusters.tsv", m.name)
		}
		members[r.cluster] = append(members[r.cluster], i)
	}
	var eligible []int
	for c, ms := range members {
		ok, long := len(ms) <= *maxClusFlag, false
		for _, i := range ms {
			r := rows[refs[i].name]
			ok = ok && i < nTR0 && r.split == "train"
			long = long || len(refs[i].seq) > longLen
		}
		if ok && long {
			eligible = append(eligible, c)
		}
	}
	sort.Ints(eligible)
	rng := rand.New(rand.NewPCG(*seedFlag, 3))
	rng.Shuffle(len(eligible), func(a, b int) { eligible[a], eligible[b] = eligible[b], eligible[a] })
	drawn := make([]bool, len(refs))
	nLong, nDrawn, nClusters := 0, 0, 0
	for _, c := range eligible {
		if nLong >= *longWant {
			break
		}
		nClusters++
		for _, i := range members[c] {
			drawn[i] = true
			nDrawn++
			if len(refs[i].seq) > longLen {
				nLong++
			}
		}
	}
	if nLong < *longWant {
		return fmt.Errorf("-long-split: the %d eligible clusters hold %d molecules over %d nt, want %d", len(eligible), nLong, longLen, *longWant)
	}

	// The fresh check: the drawn molecules against split2's training
	// molecules alone (every clustering molecule but the validation
	// sets and the first split's dropped ones).
	var trainSet, drawnSet []mol
	var drawnIdx []int
	for i, m := range refs {
		r := rows[m.name]
		switch {
		case drawn[i]:
			drawnSet = append(drawnSet, m)
			drawnIdx = append(drawnIdx, i)
		case i >= nTR0 || r.split == "train":
			trainSet = append(trainSet, m)
		}
	}
	seqs := make([]string, len(trainSet))
	for k, m := range trainSet {
		seqs[k] = m.seq
	}
	res := searchAll(drawnSet, homology.NewWordIndex(seqs), trainSet, nil, "split2 check")
	pass := func(l link) bool {
		return l.ps.Coverage >= *covFlag && (l.ps.Identity >= *foldIDFlag || (l.ps.QueryPairs >= *pairsFlag && l.ps.F1 >= *foldF1Flag))
	}
	leak := make([]bool, len(refs))
	var dropped []string
	for q, ls := range res {
		for _, l := range ls {
			if pass(l) {
				leak[drawnIdx[q]] = true
				dropped = append(dropped, refs[drawnIdx[q]].name)
				break
			}
		}
	}

	side := make([]int, nTR0) // 0 train, 1 valid, -1 in neither
	bins := []int{100, 200, 300, 400, 600}
	var lenCount [2][6]int // first split's validation, drawn and kept
	count := func(s, n int) {
		b := len(bins)
		for k, hi := range bins {
			if n < hi {
				b = k
				break
			}
		}
		lenCount[s][b]++
	}
	bySrc := map[string]int{}
	nTrain, nValid, nKept, nKeptLong := 0, 0, 0, 0
	for k := 0; k < nTR0; k++ {
		r := rows[refs[k].name]
		n := len(refs[k].seq)
		switch {
		case drawn[k] && leak[k], r.split == "dropped":
			side[k] = -1
		case drawn[k]:
			side[k] = 1
			nKept++
			if n > longLen {
				nKeptLong++
			}
			bySrc[source(refs[k].name)]++
			count(1, n)
		case r.split == "valid":
			side[k] = 1
			nValid++
			count(0, n)
		default:
			nTrain++
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(w, "# split2: the first split's validation set plus long families (trials.md, trial 10)\n\n")
	fmt.Fprintf(w, "Eligible clusters (every member a TR0 training molecule of the first split, at most %d members, one of more than %d nt): %d. Drawn in a seeded order (PCG seed %d, stream 3) until %d molecules over %d nt: **%d clusters, %d TR0 molecules, %d of them over %d nt**.\n\n",
		*maxClusFlag, longLen, len(eligible), *seedFlag, *longWant, longLen, nClusters, nDrawn, nLong, longLen)
	fmt.Fprintf(w, "Check: searched against split2's training side alone (%d molecules: its TR0 training molecules and both 16S sets, as the first split's check) (top %d under each ranking, coverage >= %.2f, identity >= %.2f or transfer F1 >= %.2f with >= %d pairs), %d of the %d drawn molecules link to one; they are dropped (`dropped.txt`), and the validation set keeps **%d drawn molecules (%d over %d nt)**.\n\n",
		len(trainSet), *topFlag, *covFlag, *foldIDFlag, *foldF1Flag, *pairsFlag, len(dropped), nDrawn, nKept, nKeptLong, longLen)
	fmt.Fprintf(w, "Drawn and kept, by source database: %s.\n\n", countList(bySrc))
	fmt.Fprintf(w, "| | molecules | under 100 nt | 100-199 | 200-299 | 300-399 | 400-599 | 600 and over |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for s, name := range []string{"the first split's validation", "drawn and kept"} {
		fmt.Fprintf(w, "| %s | %d |", name, []int{nValid, nKept}[s])
		for _, c := range lenCount[s] {
			fmt.Fprintf(w, " %d |", c)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n**`valid.dbn.gz`: %d molecules; `train.dbn.gz`: %d TR0 molecules** (with the 16S training set for rna train).\n", nValid+nKept, nTrain)
	if err := writeLines(filepath.Join(dir, "dropped.txt"), "# split2's drawn molecules that link to one of its training molecules (a fresh search against training alone); in neither set", dropped); err != nil {
		return err
	}
	return writeSplit(dir, *tr0Flag, refs[:nTR0], side)
}
