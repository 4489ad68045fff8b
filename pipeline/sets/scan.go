package sets

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/contactmap/contactmap/pdb"
)

// Chain is one protein chain read from a structure file.
type Chain struct {
	ID       string // PDB code, "_", author chain ID: feature files' name
	PDB      string // upper-case PDB code
	Chain    string // author chain ID
	Seq      string // one-letter sequence (SEQRES when the file has it)
	Resolved int    // positions of Seq with C-alpha coordinates
	File     string // the structure file
}

// Skip is a chain or a file Scan could not use.
type Skip struct {
	File, Chain, Reason string
}

// structureFile matches the names Scan reads, capturing the PDB code in
// the names that carry one: pdbXXXX.ent[.gz], XXXX.pdb[.gz],
// XXXX.cif[.gz], and XXXX_C.pdb (a single-chain file; C captured too).
var structureFile = regexp.MustCompile(`^(?:pdb([0-9a-zA-Z]{4})\.ent|([0-9a-zA-Z]{4})(?:_([0-9a-zA-Z]+))?\.(?:pdb|cif))(?:\.gz)?$`)

// Files lists the structure files under the directories, sorted.
func Files(dirs ...string) ([]string, error) {
	var out []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && structureFile.MatchString(d.Name()) {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("sets: %w", err)
		}
	}
	slices.Sort(out)
	return out, nil
}

// codeOf is the PDB code a file's name gives.
func codeOf(path string) string {
	m := structureFile.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return ""
	}
	return strings.ToUpper(m[1] + m[2])
}

// chainOf is the chain ID a single-chain file's name gives (XXXX_C.pdb),
// or "".
func chainOf(path string) string {
	m := structureFile.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return ""
	}
	return m[3]
}

// Scan reads the structure files with workers goroutines and returns
// their protein chains that have C-alpha coordinates for at least
// minResolved positions and for at least minFraction of their sequence,
// in file and chain order; every other chain, and every file that
// cannot be read, is a Skip. A chain with a blank identifier is named by
// its single-chain file's name (XXXX_C.pdb), or skipped. progress (may be nil) is called after each
// file.
func Scan(files []string, minResolved int, minFraction float64, workers int, progress func()) ([]Chain, []Skip) {
	type result struct {
		chains []Chain
		skips  []Skip
	}
	results := make([]result, len(files))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i].chains, results[i].skips = scanFile(files[i], minResolved, minFraction)
				if progress != nil {
					progress()
				}
			}
		}()
	}
	for i := range files {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	var chains []Chain
	var skips []Skip
	for _, r := range results {
		chains = append(chains, r.chains...)
		skips = append(skips, r.skips...)
	}
	return chains, skips
}

func scanFile(path string, minResolved int, minFraction float64) ([]Chain, []Skip) {
	s, err := pdb.ReadFile(path)
	if err != nil {
		return nil, []Skip{{File: path, Reason: err.Error()}}
	}
	code := strings.ToUpper(s.ID)
	if code == "" {
		code = codeOf(path)
	}
	if len(code) != 4 {
		return nil, []Skip{{File: path, Reason: "no PDB code in the file or its name"}}
	}
	var chains []Chain
	var skips []Skip
	for _, c := range s.Chains {
		if !c.IsProtein() {
			continue // nucleic acids and ligands are not candidates, not errors
		}
		res, err := c.Align()
		if err != nil {
			skips = append(skips, Skip{File: path, Chain: c.ID, Reason: err.Error()})
			continue
		}
		seq := c.Sequence()
		n := 0
		for _, r := range res {
			if r != nil && r.Has("CA") {
				n++
			}
		}
		if n < minResolved || float64(n) < minFraction*float64(len(seq)) {
			skips = append(skips, Skip{File: path, Chain: c.ID, Reason: fmt.Sprintf("%d of %d residues have C-alpha coordinates", n, len(seq))})
			continue
		}
		id := c.ID
		if id == "" {
			// A blank chain identifier names no chain: a single-chain
			// file's name gives it (the features stage finds the file's
			// only, unnamed chain by that name: pdb.Structure.FindChain);
			// otherwise the chain has no ID to be listed under.
			if id = chainOf(path); id == "" || len(s.Chains) != 1 {
				skips = append(skips, Skip{File: path, Reason: "blank chain identifier, and no XXXX_C file name to name the chain"})
				continue
			}
		}
		chains = append(chains, Chain{ID: code + "_" + id, PDB: code, Chain: id, Seq: seq, Resolved: n, File: path})
	}
	return chains, skips
}
