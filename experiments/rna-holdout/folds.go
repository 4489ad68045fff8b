package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/contactmap/contactmap/rna/homology"
)

// folds writes the ArchiveII family folds' exclusion lists: for each
// family, every TR0 and 16S molecule linked directly to one of the
// family's molecules, searched in both directions (the family's
// molecules against TR0+16S, and TR0+16S against ArchiveII), each with
// -fold-top candidates per ranking. A link: coverage >= -min-cov and
// (identity >= -fold-id, or the query has >= -min-pairs pairs in its
// aligned span and SpanF1 >= -fold-f1). SpanF1 counts the query's pairs
// inside its aligned span only, so a fragment (TR0's 23S and group II
// pieces are under 500 nt) links to the part of a long molecule it
// covers. Direct links do not chain through the clusters' single
// linkage, which joined 16S, tRNA and tmRNA into one cluster.
func folds() error {
	refs, nTR0, err := readRefs()
	if err != nil {
		return err
	}
	arch, err := read(*archFlag, "archiveII")
	if err != nil {
		return err
	}
	seqsOf := func(ms []mol) []string {
		s := make([]string, len(ms))
		for i, m := range ms {
			s[i] = m.seq
		}
		return s
	}
	rix := homology.NewWordIndex(seqsOf(refs))
	aix := homology.NewWordIndex(seqsOf(arch))
	pass := func(l link) bool {
		ps := l.ps
		return ps.Coverage >= *covFlag && (ps.Identity >= *foldIDFlag || ps.SpanPairs >= *pairsFlag && ps.SpanF1 >= *foldF1Flag)
	}
	top := *foldTopFlag
	fwd := searchTop(arch, rix, refs, top, nil, "archiveII -> TR0+16S")
	rev := searchTop(refs, aix, arch, top, nil, "TR0+16S -> archiveII")
	self := searchTop(arch, aix, arch, top, func(q, r int) bool { return q == r }, "archiveII -> archiveII")
	rng := rand.New(rand.NewPCG(*seedFlag, 3))
	shuf := make([]mol, len(arch))
	for i, m := range arch {
		shuf[i] = m
		shuf[i].seq = homology.DinucleotideShuffle(m.seq, rng)
	}
	shufRes := searchTop(shuf, rix, refs, top, nil, "shuffled archiveII -> TR0+16S")

	// Controls.
	passes := func(ls []link, ok func(link) bool) bool {
		for _, l := range ls {
			if pass(l) && ok(l) {
				return true
			}
		}
		return false
	}
	any := func(link) bool { return true }
	nShuf, nOther, nSame := 0, 0, 0
	for q := range arch {
		if passes(shufRes[q], any) {
			nShuf++
		}
		if passes(self[q], func(l link) bool { return arch[l.ref].family != arch[q].family }) {
			nOther++
		}
		if passes(self[q], func(l link) bool { return arch[l.ref].family == arch[q].family }) {
			nSame++
		}
	}
	n := float64(len(arch))
	fmt.Printf("# ArchiveII family folds: exclusion lists by direct links\n\n")
	fmt.Printf("Prefilter: top %d by Jaccard and top %d by shared 8-mers, at least %d shared; overlap alignment; link: coverage >= %.2f and (identity >= %.2f, or >= %d query pairs in the aligned span and SpanF1 >= %.2f). Both directions searched.\n\n",
		top, top, *sharedFlag, *covFlag, *foldIDFlag, *pairsFlag, *foldF1Flag)
	fmt.Println("## Controls (share of the 3,966 ArchiveII queries with a passing link)")
	fmt.Println()
	fmt.Println("| control | share |")
	fmt.Println("|---|---:|")
	fmt.Printf("| ArchiveII against ArchiveII, another family (false) | %.4f |\n", float64(nOther)/n)
	fmt.Printf("| ArchiveII against ArchiveII, the same family | %.4f |\n", float64(nSame)/n)
	fmt.Printf("| dinucleotide-shuffled ArchiveII (its own structure kept) against TR0+16S (false; an upper bound) | %.4f |\n", float64(nShuf)/n)
	fmt.Println()

	// Per family: the references linked to it, either direction.
	linked := map[string]map[int]bool{} // family -> refs
	fwdLinked := map[string]int{}       // family -> its molecules with a forward link
	for q, ls := range fwd {
		f := arch[q].family
		if linked[f] == nil {
			linked[f] = map[int]bool{}
		}
		hit := false
		for _, l := range ls {
			if pass(l) {
				linked[f][l.ref] = true
				hit = true
			}
		}
		if hit {
			fwdLinked[f]++
		}
	}
	revOnly := map[string]int{}
	for r, ls := range rev {
		for _, l := range ls {
			if !pass(l) {
				continue
			}
			f := arch[l.ref].family
			if !linked[f][r] {
				revOnly[f]++
			}
			linked[f][r] = true
		}
	}
	fams := map[string]int{}
	for _, m := range arch {
		fams[m.family]++
	}
	var order []string
	for f := range fams {
		order = append(order, f)
	}
	sort.Strings(order)
	dir := filepath.Join(*outFlag, "archiveII-folds")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Println("## Folds")
	fmt.Println()
	fmt.Println("| family | molecules | with a link to TR0+16S | excluded TR0 | excluded 16S | of them found only from the TR0+16S side | excluded by source |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---|")
	for _, f := range order {
		var idx []int
		for r := range linked[f] {
			idx = append(idx, r)
		}
		sort.Ints(idx)
		var names []string
		ntr, n16 := 0, 0
		src := map[string]int{}
		for _, r := range idx {
			names = append(names, refs[r].name)
			src[source(refs[r].name)]++
			if r < nTR0 {
				ntr++
			} else {
				n16++
			}
		}
		if err := writeLines(filepath.Join(dir, f+".exclude.txt"), "", names); err != nil {
			return err
		}
		fmt.Printf("| %s | %d | %d | %d | %d | %d | %s |\n", f, fams[f], fwdLinked[f], ntr, n16, revOnly[f], countList(src))
	}
	fmt.Println()
	return nil
}
