// Command sets writes the inputs of "contactmap features" for the
// deep-alignment families of issue 31 (experiments/msa-net/split):
//
//   - OUT/chains.tsv: a chain-set file (package sets) with one row per
//     family: its chain ID, the chain's length, the family's split from
//     families.tsv, and its structure file (the path families.tsv gives,
//     relative to the repository root);
//   - OUT/msa/: one symbolic link per family, <chain ID><extension>
//     (1AAP_A.aln.gz, 2O9S_A.fasta), to the family's alignment, for
//     "contactmap features --msa-dir OUT/msa".
//
// Chain IDs: a PSICOV family ID is the PDB code and the chain (1aapA)
// and reads as 1AAP_A; a Pfam family's ID already is one (1AQT_A). The
// PSICOV structures have a blank chain identifier and no SEQRES: the
// features stage takes the row's chain to be the file's only, unnamed one
// (pdb.Structure.FindChain) and the sequence from the ATOM records, which
// equals the alignment's first row.
//
// A protein in both sources (the four duplicates of families.tsv: same
// group and split) is one chain: its PSICOV row is used, the Pfam row
// dropped, so 142 rows give 138 chains.
//
// The links keep the alignments where they are (no copies in the
// repository) and give the features stage the one lookup it has, an
// alignment named after the chain in one directory (features.FindMSA),
// so the chain-set format stays as it is. They are relative, so they
// resolve from any checkout with ../shared beside it.
//
// Run from the repository root (a second or two):
//
//	go run ./experiments/msa-net/sets [-families experiments/msa-net/split/families.tsv] [-out experiments/msa-net/sets]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/sets"
)

// Sources of families.tsv.
const (
	PSICOV = "psicov150"
	Pfam   = "pfam40"
)

var familiesHeader = []string{"family", "source", "path", "structure", "L", "N", "group", "split", "pisces_homolog"}

// Family is one row of families.tsv.
type Family struct {
	ID, Source, Alignment, Structure, Group, Split string
	Line                                           int
}

// Chain is a family as a chain of the chain set.
type Chain struct {
	Family
	ChainID, PDB, Chain string
	Seq                 string // the structure chain's sequence
}

var (
	psicovID = regexp.MustCompile(`^([0-9][0-9a-zA-Z]{3})([0-9A-Za-z])$`)
	pfamID   = regexp.MustCompile(`^([0-9][0-9A-Z]{3})_([0-9A-Za-z]+)$`)
)

// ChainID maps a family ID to its chain ID: 1aapA (PSICOV) to 1AAP_A,
// 1AQT_A (Pfam) to itself.
func ChainID(source, id string) (chainID, code, chain string, err error) {
	var m []string
	switch source {
	case PSICOV:
		m = psicovID.FindStringSubmatch(id)
	case Pfam:
		m = pfamID.FindStringSubmatch(id)
	default:
		return "", "", "", fmt.Errorf("unknown source %q (%s or %s)", source, PSICOV, Pfam)
	}
	if m == nil {
		return "", "", "", fmt.Errorf("%s family %q is not a PDB code and chain", source, id)
	}
	code, chain = strings.ToUpper(m[1]), m[2]
	return code + "_" + chain, code, chain, nil
}

// Split maps a families.tsv split to the chain-set split names.
func Split(s string) (string, error) {
	switch s {
	case "train":
		return sets.Train, nil
	case "valid", "validation":
		return sets.Validation, nil
	case "test":
		return sets.Test, nil
	}
	return "", fmt.Errorf("split %q (train, valid(ation) or test)", s)
}

// ReadFamilies reads families.tsv.
func ReadFamilies(path string) ([]Family, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Family
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		fs := strings.Split(sc.Text(), "\t")
		if line == 1 {
			if !slices.Equal(fs, familiesHeader) {
				return nil, fmt.Errorf("%s line 1: header %q, want %q", path, sc.Text(), strings.Join(familiesHeader, "\t"))
			}
			continue
		}
		if len(fs) != len(familiesHeader) {
			return nil, fmt.Errorf("%s line %d: %d fields, want %d", path, line, len(fs), len(familiesHeader))
		}
		split, err := Split(fs[7])
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		out = append(out, Family{ID: fs[0], Source: fs[1], Alignment: fs[2], Structure: fs[3], Group: fs[6], Split: split, Line: line})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s line %d: %w", path, line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no families", path)
	}
	return out, nil
}

// Chains maps the families to chains sorted by chain ID, a protein in
// both sources to its PSICOV row; dropped lists the Pfam rows left out.
// Two rows of one chain must be one PSICOV and one Pfam row with the same
// group and split.
func Chains(path string, fams []Family) (chains []Chain, dropped []Family, err error) {
	byID := map[string][]Chain{}
	var ids []string
	for _, f := range fams {
		id, code, ch, err := ChainID(f.Source, f.ID)
		if err != nil {
			return nil, nil, fmt.Errorf("%s line %d: %w", path, f.Line, err)
		}
		if byID[id] == nil {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], Chain{Family: f, ChainID: id, PDB: code, Chain: ch})
	}
	slices.Sort(ids)
	for _, id := range ids {
		cs := byID[id]
		if len(cs) == 1 {
			chains = append(chains, cs[0])
			continue
		}
		if len(cs) != 2 || cs[0].Source == cs[1].Source {
			return nil, nil, fmt.Errorf("%s lines %d and %d: %d rows of chain %s, want at most one per source", path, cs[0].Line, cs[1].Line, len(cs), id)
		}
		if cs[0].Group != cs[1].Group || cs[0].Split != cs[1].Split {
			return nil, nil, fmt.Errorf("%s lines %d and %d: chain %s in groups %s and %s, splits %s and %s: one protein must sit on one side", path, cs[0].Line, cs[1].Line, id, cs[0].Group, cs[1].Group, cs[0].Split, cs[1].Split)
		}
		if cs[0].Source != PSICOV {
			cs[0], cs[1] = cs[1], cs[0]
		}
		chains = append(chains, cs[0])
		dropped = append(dropped, cs[1].Family)
	}
	return chains, dropped, nil
}

// readSequence reads a chain's sequence from its structure file (root
// joined to the path families.tsv gives).
func readSequence(root string, c Chain) (string, error) {
	s, err := pdb.ReadFile(filepath.Join(root, c.Structure))
	if err != nil {
		return "", fmt.Errorf("family %s: %w", c.ID, err)
	}
	ch := s.FindChain(c.Chain)
	switch {
	case ch == nil:
		return "", fmt.Errorf("family %s: %s has no chain %s and no single unnamed chain", c.ID, c.Structure, c.Chain)
	case !ch.IsProtein():
		return "", fmt.Errorf("family %s: chain %s of %s is not a protein chain", c.ID, c.Chain, c.Structure)
	}
	return ch.Sequence(), nil
}

// linkName is the alignment link of a chain: its ID and the extension of
// the family's alignment file (the family ID removed from the file name:
// 1aapA.aln.gz gives .aln.gz).
func linkName(c Chain) (string, error) {
	base := filepath.Base(c.Alignment)
	ext, ok := strings.CutPrefix(base, c.ID)
	if !ok || !strings.HasPrefix(ext, ".") {
		return "", fmt.Errorf("family %s: alignment file %s is not named after the family", c.ID, c.Alignment)
	}
	return c.ChainID + ext, nil
}

// writeLinks makes dir hold exactly one link per chain, to its alignment
// (root joined to the path families.tsv gives), relative to dir. Other
// links there are removed; any other file is an error. Each link is
// checked to be what features.FindMSA finds for the chain.
func writeLinks(root, dir string, chains []Chain) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	want := map[string]string{} // link name -> target
	for _, c := range chains {
		name, err := linkName(c)
		if err != nil {
			return err
		}
		aln, err := filepath.Abs(filepath.Join(root, c.Alignment))
		if err != nil {
			return err
		}
		if st, err := os.Stat(aln); err != nil || !st.Mode().IsRegular() {
			return fmt.Errorf("family %s: alignment %s: not a readable file (%v)", c.ID, c.Alignment, err)
		}
		if want[name], err = filepath.Rel(absDir, aln); err != nil {
			return err
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.Type()&os.ModeSymlink == 0 {
			return fmt.Errorf("%s is not a symbolic link: remove it by hand", p)
		}
		if t, err := os.Readlink(p); err == nil && t == want[e.Name()] {
			delete(want, e.Name())
			continue
		}
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	for name, target := range want {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	for _, c := range chains {
		name, _ := linkName(c)
		if got := features.FindMSA(dir, c.ChainID); got != filepath.Join(dir, name) {
			return fmt.Errorf("family %s: features.FindMSA finds %q in %s, want %s", c.ID, got, dir, name)
		}
	}
	return nil
}

// Run writes out/chains.tsv and out/msa from the families file; the
// paths in it are relative to root.
func Run(families, root, out string) ([]Chain, []Family, error) {
	fams, err := ReadFamilies(families)
	if err != nil {
		return nil, nil, err
	}
	chains, dropped, err := Chains(families, fams)
	if err != nil {
		return nil, nil, err
	}
	ms := make([]sets.Member, len(chains))
	for i := range chains {
		c := &chains[i]
		if c.Seq, err = readSequence(root, *c); err != nil {
			return nil, nil, err
		}
		ms[i] = sets.Member{Chain: sets.Chain{ID: c.ChainID, PDB: c.PDB, Chain: c.Chain, Seq: c.Seq, File: c.Structure}, Split: c.Split}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, nil, err
	}
	if err := sets.Write(filepath.Join(out, "chains.tsv"), ms); err != nil {
		return nil, nil, err
	}
	if err := writeLinks(root, filepath.Join(out, "msa"), chains); err != nil {
		return nil, nil, err
	}
	return chains, dropped, nil
}

func main() {
	log.SetFlags(0)
	families := flag.String("families", "experiments/msa-net/split/families.tsv", "family split (experiments/msa-net/split)")
	root := flag.String("root", ".", "directory the paths of the families file are relative to")
	out := flag.String("out", "experiments/msa-net/sets", "output directory: chains.tsv and msa/")
	flag.Parse()
	chains, dropped, err := Run(*families, *root, *out)
	if err != nil {
		log.Fatal(err)
	}
	count := map[string]int{}
	minL, maxL := 0, 0
	for _, c := range chains {
		count[c.Source+" "+c.Split]++
		if l := len(c.Seq); minL == 0 || l < minL {
			minL = l
		}
		maxL = max(maxL, len(c.Seq))
	}
	fmt.Printf("%d chains (lengths %d-%d) in %s/chains.tsv, alignments linked in %s/msa\n", len(chains), minL, maxL, *out, *out)
	for _, src := range []string{PSICOV, Pfam} {
		fmt.Printf("  %-9s  train %3d  validation %3d  test %3d\n", src, count[src+" "+sets.Train], count[src+" "+sets.Validation], count[src+" "+sets.Test])
	}
	for _, f := range dropped {
		fmt.Printf("  %s (%s) dropped: the same protein as a %s family\n", f.ID, f.Source, PSICOV)
	}
}
