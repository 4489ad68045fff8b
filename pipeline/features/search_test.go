package features

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/search"
	"github.com/contactmap/contactmap/pipeline/sets"
)

// searchDB writes a FASTA database of 1BRF_A's family (rows 2-201 of the
// PSICOV alignment testdata/1brfA.aln.gz, gaps removed) and as many
// shuffled copies (decoys) into dir.
func searchDB(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open("testdata/1brfA.aln.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rng := rand.New(rand.NewPCG(1, 2))
	sc := bufio.NewScanner(zr)
	for n := 0; sc.Scan() && n <= 200; n++ {
		if n == 0 {
			continue // the query
		}
		seq := []byte(strings.ReplaceAll(sc.Text(), "-", ""))
		fmt.Fprintf(&b, ">fam%d\n%s\n", n, seq)
		rng.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
		fmt.Fprintf(&b, ">shuf%d\n%s\n", n, seq)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "db.fasta")
	if err := os.WriteFile(db, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return db
}

// chainSet writes a chain-set file of the test structure 1BRF_A.
func chainSet(t *testing.T, dir string) string {
	t.Helper()
	set := filepath.Join(dir, "set.tsv")
	text := strings.Join(sets.Header, "\t") + "\n" +
		"1BRF_A\t53\ttrain\t../../pdb/testdata/1brfA.pdb.gz\t-\t0.000\t0\n"
	if err := os.WriteFile(set, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return set
}

// With a Searcher, a chain without an alignment gets one from the search
// (jackhmmer, the real tool) in MSADir, with its log and a manifest row;
// its features are MSA features from it; a rerun reuses the alignment
// and the features and searches nothing.
func TestRunSearchesAlignment(t *testing.T) {
	if _, err := exec.LookPath("jackhmmer"); err != nil {
		t.Skip("jackhmmer not on PATH: install the Debian package hmmer (CI does)")
	}
	dir := t.TempDir()
	s, err := search.New(search.Options{Tool: search.Jackhmmer, DB: searchDB(t, dir), Iterations: 2, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msaDir := filepath.Join(dir, "msa")
	cfg := Config{Chains: chainSet(t, dir), MSADir: msaDir, Search: s, SearchFilter: search.Filter{MaxIdentity: 1},
		Out: filepath.Join(dir, "out"), MinLen: 1, MaxLen: 1000, Workers: 1}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Skips) != 0 || len(rep.Entries) != 1 || rep.Entries[0].Mode != MSAMode {
		t.Fatalf("entries %+v, skips %+v", rep.Entries, rep.Skips)
	}
	if len(rep.Searches) != 1 || rep.Searches[0].Status != search.StatusOK {
		t.Fatalf("searches %+v", rep.Searches)
	}
	a, err := msa.ReadFile(filepath.Join(msaDir, "1BRF_A.a3m"))
	if err != nil {
		t.Fatal(err)
	}
	fam := 0
	for _, name := range a.Names {
		if strings.HasPrefix(name, "shuf") {
			t.Errorf("decoy %s in the alignment", name)
		}
		if strings.HasPrefix(name, "fam") {
			fam++
		}
	}
	if fam < 150 || a.N() != rep.Searches[0].Depth {
		t.Errorf("alignment: %d family rows of 200, depth %d, manifest says %d", fam, a.N(), rep.Searches[0].Depth)
	}
	if _, err := os.Stat(filepath.Join(msaDir, "1BRF_A.log")); err != nil {
		t.Errorf("no log: %v", err)
	}
	man, err := os.ReadFile(filepath.Join(msaDir, search.ManifestName+".tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(man)), "\n"); len(lines) != 2 || lines[0] != search.ManifestHeader || !strings.HasPrefix(lines[1], "1BRF_A\t53\t") {
		t.Errorf("search manifest:\n%s", man)
	}
	c, err := ReadFile(filepath.Join(cfg.Out, rep.Entries[0].File))
	if err != nil {
		t.Fatal(err)
	}
	if !c.HasMSA {
		t.Error("features without the MSA channels")
	}
	var out strings.Builder
	if err := rep.WriteRun(&out, &out, cfg); err != nil || !strings.Contains(out.String(), "alignments searched: 1 with jackhmmer (0 failed)") {
		t.Errorf("summary (%v):\n%s", err, out.String())
	}
	rep, err = Run(context.Background(), cfg)
	if err != nil || rep.Reused != 1 || len(rep.Searches) != 0 {
		t.Errorf("re-run: %+v, %v", rep, err)
	}
	// The features gone, the alignment stays: used, not searched again.
	if err := os.Remove(filepath.Join(cfg.Out, FileName("1BRF_A"))); err != nil {
		t.Fatal(err)
	}
	rep, err = Run(context.Background(), cfg)
	if err != nil || rep.Written != 1 || len(rep.Searches) != 0 {
		t.Errorf("re-run without the features: %+v, %v", rep, err)
	}
}

// A search that fails skips its chain with the reason and the tool's
// log named, and is a failed row of the search manifest; the run itself
// does not fail.
func TestRunSearchFailure(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "jackhmmer")
	script := "#!/bin/sh\ncase \"$1\" in -h) echo '# HMMER 3.3.2 (Nov 2020)'; exit 0;; esac\necho 'database exploded' >&2\nexit 3\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := search.New(search.Options{Tool: search.Jackhmmer, Bin: bin, DB: searchDB(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msaDir := filepath.Join(dir, "msa")
	cfg := Config{Chains: chainSet(t, dir), MSADir: msaDir, Search: s, Out: filepath.Join(dir, "out"), MinLen: 1, MaxLen: 1000, Workers: 1}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Entries) != 0 || len(rep.Skips) != 1 || rep.Skips[0].Reason != ReasonSearch || !strings.Contains(rep.Skips[0].Detail, "1BRF_A.log") {
		t.Fatalf("entries %+v, skips %+v", rep.Entries, rep.Skips)
	}
	if len(rep.Searches) != 1 || rep.Searches[0].Status != search.StatusFailed {
		t.Fatalf("searches %+v", rep.Searches)
	}
	if log, err := os.ReadFile(filepath.Join(msaDir, "1BRF_A.log")); err != nil || !strings.Contains(string(log), "database exploded") {
		t.Errorf("log (%v):\n%s", err, log)
	}
	man, err := os.ReadFile(filepath.Join(msaDir, search.ManifestName+".tsv"))
	if err != nil || !strings.Contains(string(man), "\tfailed\t") {
		t.Errorf("manifest (%v):\n%s", err, man)
	}
}
