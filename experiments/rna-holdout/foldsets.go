package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// foldSets writes, for each ArchiveII family fold (the exclusion lists
// in -out/archiveII-folds/), the sets of its run into dir/FAMILY/:
//
//	train.dbn.gz   the split's TR0 training side (-out/train.dbn.gz) minus the fold's list
//	16s.dbn.gz     the first -16s file (the 16S training set) minus the fold's list
//	select.dbn.gz  the family-held-out validation set (-out/valid.dbn.gz) minus the fold's list
//	test.dbn.gz    the family's ArchiveII molecules
//
// so each fold trains E's protocol (trials.md) as E was trained, with
// the family's homologs removed from every set it learns or selects on,
// and is scored once on the family. The exclusion lists cover TR0 and
// both 16S sets, so every molecule the run sees is checked.
func foldSets(dir string) error {
	lists, err := filepath.Glob(filepath.Join(*outFlag, "archiveII-folds", "*.exclude.txt"))
	if err != nil {
		return err
	}
	if len(lists) == 0 {
		return fmt.Errorf("no exclusion lists in %s (run -folds)", filepath.Join(*outFlag, "archiveII-folds"))
	}
	sets := []struct {
		out, in string
	}{
		{"train.dbn.gz", filepath.Join(*outFlag, "train.dbn.gz")},
		{"16s.dbn.gz", strings.Split(*s16Flag, ",")[0]},
		{"select.dbn.gz", filepath.Join(*outFlag, "valid.dbn.gz")},
	}
	read := make([][]ssnet.Molecule, len(sets))
	for k, s := range sets {
		if read[k], err = ssnet.ReadSet(s.in); err != nil {
			return err
		}
	}
	arch, err := ssnet.ReadSet(*archFlag)
	if err != nil {
		return err
	}
	fmt.Println("| fold | train (TR0) | 16S | select | test |")
	fmt.Println("|---|---:|---:|---:|---:|")
	sort.Strings(lists)
	for _, list := range lists {
		fam := strings.TrimSuffix(filepath.Base(list), ".exclude.txt")
		excl, err := readNames(list)
		if err != nil {
			return err
		}
		fd := filepath.Join(dir, fam)
		if err := os.MkdirAll(fd, 0o755); err != nil {
			return err
		}
		counts := make([]int, 0, 4)
		for k, s := range sets {
			var keep []ssnet.Molecule
			for _, m := range read[k] {
				if !excl[m.Name] {
					keep = append(keep, m)
				}
			}
			if len(keep) == 0 {
				return fmt.Errorf("fold %s: every molecule of %s is on its list", fam, s.in)
			}
			if err := writeSet(filepath.Join(fd, s.out), keep); err != nil {
				return err
			}
			counts = append(counts, len(keep))
		}
		var test []ssnet.Molecule
		for _, m := range arch {
			if f, _, _ := strings.Cut(m.Name, "_"); f == fam {
				test = append(test, m)
			}
		}
		if len(test) == 0 {
			return fmt.Errorf("fold %s: no ArchiveII molecule of the family in %s", fam, *archFlag)
		}
		if err := writeSet(filepath.Join(fd, "test.dbn.gz"), test); err != nil {
			return err
		}
		counts = append(counts, len(test))
		fmt.Printf("| %s | %d | %d | %d | %d |\n", fam, counts[0], counts[1], counts[2], counts[3])
	}
	return nil
}

// readNames reads a list of molecule names, one per line.
func readNames(file string) (map[string]bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			names[t] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return names, nil
}

// writeSet writes molecules as gzipped three-line dot-bracket records.
func writeSet(path string, ms []ssnet.Molecule) error {
	lines := make([]string, 0, 3*len(ms))
	for _, m := range ms {
		db, omitted, err := rna.DotBracketOmitted(m.Structure)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", path, m.Name, err)
		}
		if omitted > 0 {
			return fmt.Errorf("%s: %s: %d pairs need more bracket kinds than dot-bracket has", path, m.Name, omitted)
		}
		lines = append(lines, ">"+m.Name, m.Seq, db)
	}
	return writeGz(path, lines)
}
