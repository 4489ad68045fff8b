// Command msa-search measures contactmap predict --db (issue 55, part 4):
// homology search against a test database made of the data in hand, then
// the shipped msa network on the searched alignment, scored against the
// structure, per search tool.
//
//	go run ./experiments/msa-search build -out /tmp/msa-search/db.fasta
//	go run ./experiments/msa-search build-hh -db /tmp/msa-search/db.fasta -out /tmp/msa-search/hh/db
//	go run ./experiments/msa-search run -db /tmp/msa-search/db.fasta -tools jackhmmer,mmseqs -split validation
//	go run ./experiments/msa-search baselines -label jackhmmer+n5plm4000 -split validation
//	go run ./experiments/msa-search report > experiments/msa-search/report.md
//
// build writes every row of ../shared/data/psicov150/aln/*.aln.gz and
// data/msa/*.fasta, gaps ('-', '.') removed, upper-cased, deduplicated
// (first name kept), with every exact copy of a held-out (validation or
// test) target's query removed (the structure chain's sequence and its
// alignment's first row), shuffled with a fixed seed, named FAMILY/ROW
// (the row's index in its alignment file, 0 the query).
//
// build-hh makes an HH-suite database (for --search hhblits) of build's
// FASTA the way UniClust30 is made: MMseqs2 clusters the sequences
// (-min-seq-id 0.3, -cov 0.8), result2msa writes one A3M per cluster
// (the representative first, every member kept) as PREFIX_a3m.ffdata and
// .ffindex, and cstranslate (-f -x 0.3 -c 4, HH-suite's cs219.lib and
// context_data.lib) makes PREFIX_cs219 for HHblits' prefilter. HHblits 3
// needs no PREFIX_hhm. cstranslate is the one on PATH, else the best
// /usr/libexec/hhsuite/cstranslate-SIMD of Debian's hhsuite that the CPU
// runs. The tools' output goes to PREFIX.build-hh.log; it prints the
// cluster count and the seconds of each step.
//
// run takes the families of one split of experiments/msa-net/split and,
// per family and tool, runs `contactmap msa` (the search alone) and then
// `contactmap predict --db ... --msa-dir` (which reuses that alignment and
// predicts with the msa network, or falls back below Neff/L 0.1) on the
// family's structure file, each under /usr/bin/time -v (wall seconds,
// peak resident memory of the largest process). The .npy map is scored
// against the structure: long-range (|i-j| >= 24) top-L/5, L/2 and L
// precision of C-beta contacts under 8 Å (predict.PlmContacts, as
// experiments/msa-net/eval). A row is appended to -results as each
// (family, tool) finishes; a rerun skips the rows there (resumable).
// -plm adds plmDCA (`predict --method plm`) on the searched alignment.
//
// baselines scores the model-free predictors on one arm's searched
// alignments (WORK/LABEL/<chain ID>.a3m, LABEL being run's tool column):
// freecontact's EVfold mode (experiments/internal/freecontact) on the
// alignment's rows in the query's columns, and -|i-j|, scored as run
// scores the network's map; a row per family is appended to -results
// (resumable), and a family whose alignment or freecontact fails is
// logged and left out. report adds their rows to the table of the tool
// of that label (-baselines).
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/contactmap/contactmap/experiments/internal/freecontact"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/predict"
)

const splitFile = "experiments/msa-net/split/families.tsv"

func main() {
	log.SetFlags(log.Ltime)
	if len(os.Args) < 2 {
		log.Fatal("usage: msa-search build|build-hh|run|baselines|report [flags]")
	}
	switch os.Args[1] {
	case "build":
		build(os.Args[2:])
	case "build-hh":
		buildHHCmd(os.Args[2:])
	case "run":
		run(os.Args[2:])
	case "baselines":
		baselines(os.Args[2:])
	case "report":
		report(os.Args[2:])
	default:
		log.Fatalf("unknown command %q: build, build-hh, run, baselines or report", os.Args[1])
	}
}

type family struct {
	name, source, aln, structure, split string
}

// dropped names the Pfam families whose protein is also a PSICOV family
// (1CTF_A, 1GUU_A, 1T8K_A, 1TZV_A): as in experiments/msa-net/sets, the
// PSICOV row is the target and the Pfam row is not run.
func dropped(fams []family) map[string]bool {
	psicov := map[string]bool{}
	for _, f := range fams {
		if f.source == "psicov150" {
			psicov[chainID(f.name)] = true
		}
	}
	out := map[string]bool{}
	for _, f := range fams {
		if f.source != "psicov150" && psicov[chainID(f.name)] {
			out[f.name] = true
		}
	}
	return out
}

func readSplit() ([]family, error) {
	data, err := os.ReadFile(splitFile)
	if err != nil {
		return nil, err
	}
	var out []family
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(l, "\t")
		if i == 0 {
			continue
		}
		if len(f) < 8 {
			return nil, fmt.Errorf("%s line %d: %d fields, want 8", splitFile, i+1, len(f))
		}
		out = append(out, family{name: f[0], source: f[1], aln: f[2], structure: f[3], split: f[7]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// rows reads an alignment file's rows (PSICOV .aln[.gz]: one a line;
// FASTA: records), ungapped and upper-cased.
func rows(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	clean := func(s string) string {
		s = strings.Map(func(c rune) rune {
			if c == '-' || c == '.' || c == ' ' || c == '\r' {
				return -1
			}
			return c
		}, s)
		return strings.ToUpper(s)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var out []string
	fasta := strings.Contains(path, ".fa")
	var cur strings.Builder
	inRec := false
	for sc.Scan() {
		l := sc.Text()
		if !fasta {
			if strings.TrimSpace(l) != "" {
				out = append(out, clean(l))
			}
			continue
		}
		if strings.HasPrefix(l, ">") {
			if inRec {
				out = append(out, clean(cur.String()))
			}
			cur.Reset()
			inRec = true
			continue
		}
		cur.WriteString(strings.TrimSpace(l))
	}
	if inRec {
		out = append(out, clean(cur.String()))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

func build(args []string) {
	fs := flag.NewFlagSet("build", flag.ExitOnError)
	out := fs.String("out", "/tmp/msa-search/db.fasta", "the database (FASTA)")
	seed := fs.Uint64("seed", 55, "shuffle seed")
	fs.Parse(args)
	fams, err := readSplit()
	if err != nil {
		log.Fatal(err)
	}
	// Exact held-out queries: the structure chain's sequence and the
	// alignment's first row of every validation and test family.
	held := map[string]string{}
	for _, f := range fams {
		if f.split == "train" {
			continue
		}
		ts, err := predict.Resolve(f.structure, "")
		if err != nil || len(ts) != 1 {
			log.Fatalf("%s: %v (%d chains)", f.structure, err, len(ts))
		}
		held[ts[0].Seq] = f.name
		r, err := rows(f.aln)
		if err != nil {
			log.Fatal(err)
		}
		held[r[0]] = f.name
	}
	files, _ := filepath.Glob("../shared/data/psicov150/aln/*.aln.gz")
	pf, _ := filepath.Glob("data/msa/*.fasta")
	files = append(files, pf...)
	sort.Strings(files)
	type rec struct{ name, seq string }
	var db []rec
	seen := map[string]bool{}
	var total, empty, dups, removed int
	for _, path := range files {
		rs, err := rows(path)
		if err != nil {
			log.Fatal(err)
		}
		fam := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".aln.gz"), ".fasta")
		for i, s := range rs {
			total++
			switch {
			case s == "":
				empty++
			case held[s] != "":
				removed++
			case seen[s]:
				dups++
			default:
				seen[s] = true
				db = append(db, rec{fmt.Sprintf("%s/%d", fam, i), s})
			}
		}
	}
	rng := rand.New(rand.NewPCG(*seed, 4))
	rng.Shuffle(len(db), func(i, j int) { db[i], db[j] = db[j], db[i] })
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		log.Fatal(err)
	}
	w, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var res int
	for _, r := range db {
		fmt.Fprintf(bw, ">%s\n%s\n", r.name, r.seq)
		res += len(r.seq)
	}
	if err := bw.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("files %d, rows %d, empty %d, held-out query copies removed %d, duplicates %d; database %s: %d sequences, %d residues (mean length %.1f), seed %d\n",
		len(files), total, empty, removed, dups, *out, len(db), res, float64(res)/float64(len(db)), *seed)
}

// hhConfig is build-hh's input. The binaries and the context library
// directory are found where empty (mmseqs on PATH, findCstranslate,
// findHHData).
type hhConfig struct {
	db, out, work       string
	minSeqID, cov       float64
	threads             int
	force               bool
	mmseqs, cstranslate string
	hhData              string
}

// hhStep is a step of build-hh and its wall seconds.
type hhStep struct {
	name    string
	seconds float64
}

// hhResult is what build-hh built: the clusters (one A3M each), the
// steps' times, the cstranslate it ran and the log of the tools' output.
type hhResult struct {
	clusters    int
	steps       []hhStep
	cstranslate string
	log         string
}

// hhSIMD are the builds of cstranslate that Debian's hhsuite ships in
// /usr/libexec/hhsuite, best first, with the /proc/cpuinfo flag each
// needs (Debian's wrapper tries them in this order; it greps the name,
// which never matches "sse4.1" (the flag is sse4_1) and matches "sse3"
// in "ssse3"; the kernel calls SSE3 "pni").
var hhSIMD = []struct{ suffix, flag string }{
	{"avx2", "avx2"}, {"avx", "avx"}, {"sse4.1", "sse4_1"}, {"ssse3", "ssse3"}, {"sse3", "pni"}, {"plain", ""},
}

const hhLibexec = "/usr/libexec/hhsuite"

// cpuFlags reads the flags of /proc/cpuinfo (path); an unreadable file
// has none.
func cpuFlags(path string) map[string]bool {
	out := map[string]bool{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, l := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if ok && strings.TrimSpace(k) == "flags" {
			for _, f := range strings.Fields(v) {
				out[f] = true
			}
		}
	}
	return out
}

// cstranslateRuns reports whether bin is a working cstranslate: run
// without arguments it prints its usage (Debian's wrapper, called from
// /usr/libexec/hhsuite/bin, fails instead).
func cstranslateRuns(bin string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, bin).CombinedOutput()
	return bytes.Contains(out, []byte("Usage: cstranslate"))
}

// findCstranslate returns cstranslate: the one on PATH where it runs,
// else the best libexec/cstranslate-SIMD that runs and that the CPU
// (flags) supports.
func findCstranslate(libexec string, flags map[string]bool) (string, error) {
	if p, err := exec.LookPath("cstranslate"); err == nil && cstranslateRuns(p) {
		return p, nil
	}
	for _, s := range hhSIMD {
		p := filepath.Join(libexec, "cstranslate-"+s.suffix)
		if st, err := os.Stat(p); err != nil || st.IsDir() || s.flag != "" && !flags[s.flag] {
			continue
		}
		if cstranslateRuns(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no cstranslate: none on PATH that runs, and no %s/cstranslate-{avx2,avx,sse4.1,ssse3,sse3,plain} that this CPU runs: install the Debian packages hhsuite and hhsuite-data (apt-get install hhsuite hhsuite-data)", libexec)
}

// findHHData returns the directory of HH-suite's context libraries
// (cs219.lib, context_data.lib): $HHLIB/data, else Debian's.
func findHHData() (string, error) {
	var dirs []string
	if h := os.Getenv("HHLIB"); h != "" {
		dirs = append(dirs, filepath.Join(h, "data"))
	}
	dirs = append(dirs, "/usr/share/hhsuite/data")
	for _, d := range dirs {
		ok := true
		for _, f := range []string{"cs219.lib", "context_data.lib"} {
			if _, err := os.Stat(filepath.Join(d, f)); err != nil {
				ok = false
			}
		}
		if ok {
			return d, nil
		}
	}
	return "", fmt.Errorf("no cs219.lib and context_data.lib in %s: install the Debian package hhsuite-data (apt-get install hhsuite-data)", strings.Join(dirs, " or "))
}

// a3mFormatMode returns the --msa-format-mode of `mmseqs result2msa`
// that writes plain A3M (the line "N: A3M format" of its help; MMseqs2
// 14: 5), which HH-suite reads.
func a3mFormatMode(mmseqs string) (string, error) {
	out, _ := exec.Command(mmseqs, "result2msa", "-h").CombinedOutput()
	re := regexp.MustCompile(`^\s*(?:--msa-format-mode INT\s+Format MSA as:\s+)?(\d+): A3M format\s*$`)
	for _, l := range strings.Split(string(out), "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			return m[1], nil
		}
	}
	return "", fmt.Errorf("%s result2msa -h lists no --msa-format-mode \"N: A3M format\" (MMseqs2 13 or later has it)", mmseqs)
}

// ffindexEntry is a line of an ffindex (or MMseqs2 database) index.
type ffindexEntry struct {
	name, line string
}

// sortFFindex writes the index dst from src (an ffindex or MMseqs2
// .index: name, offset, length, tab-separated) sorted by name, as
// ffindex's binary search wants (MMseqs2 sorts its numeric keys as
// numbers), and returns its entries; dst "" writes nothing, and dst src
// is left as it is where it is sorted.
func sortFFindex(src, dst string) (int, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return 0, err
	}
	var es []ffindexEntry
	for i, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if l == "" {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 3 {
			return 0, fmt.Errorf("%s line %d: %d fields, want 3 (name, offset, length)", src, i+1, len(f))
		}
		es = append(es, ffindexEntry{f[0], l})
	}
	if dst == "" || src == dst && sort.SliceIsSorted(es, func(i, j int) bool { return es[i].name < es[j].name }) {
		return len(es), nil
	}
	sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.line + "\n")
	}
	return len(es), os.WriteFile(dst, []byte(b.String()), 0o644)
}

// lastLine returns the last non-empty line of b.
func lastLine(b []byte) string {
	ls := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(ls[len(ls)-1])
}

// buildHH builds an HH-suite database at cfg.out from the FASTA cfg.db
// as UniClust30 is built: the sequences clustered by MMseqs2, an A3M of
// each cluster (result2msa, the representative first) in PREFIX_a3m,
// and cstranslate's column-state sequences of them in PREFIX_cs219.
// HHblits 3 needs no PREFIX_hhm (it makes the HMMs from the A3Ms;
// TestBuildHH searches without one, prefilter on). Every tool's stdout
// and stderr go to PREFIX.build-hh.log; a failed step is an error naming
// the step and the log, the work directory kept.
func buildHH(cfg hhConfig) (*hhResult, error) {
	if st, err := os.Stat(cfg.db); err != nil {
		return nil, fmt.Errorf("database: %w", err)
	} else if st.IsDir() {
		return nil, fmt.Errorf("database %s is a directory, not a FASTA file", cfg.db)
	}
	if cfg.threads < 1 {
		return nil, fmt.Errorf("-threads %d: want at least 1", cfg.threads)
	}
	var err error
	if cfg.mmseqs == "" {
		if cfg.mmseqs, err = exec.LookPath("mmseqs"); err != nil {
			return nil, fmt.Errorf("mmseqs not on PATH: install the Debian package mmseqs2 (apt-get install mmseqs2)")
		}
	}
	if cfg.cstranslate == "" {
		if cfg.cstranslate, err = findCstranslate(hhLibexec, cpuFlags("/proc/cpuinfo")); err != nil {
			return nil, err
		}
	}
	if cfg.hhData == "" {
		if cfg.hhData, err = findHHData(); err != nil {
			return nil, err
		}
	}
	mode, err := a3mFormatMode(cfg.mmseqs)
	if err != nil {
		return nil, err
	}
	a3m, cs219 := cfg.out+"_a3m", cfg.out+"_cs219"
	outputs := []string{a3m + ".ffdata", a3m + ".ffindex", cs219 + ".ffdata", cs219 + ".ffindex"}
	for _, p := range outputs {
		if _, err := os.Stat(p); err == nil {
			if !cfg.force {
				return nil, fmt.Errorf("%s exists: -force replaces it", p)
			}
			if err := os.Remove(p); err != nil {
				return nil, err
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(cfg.out), 0o755); err != nil {
		return nil, err
	}
	work := cfg.work
	if work == "" {
		work = filepath.Dir(cfg.out)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(work, "build-hh-")
	if err != nil {
		return nil, err
	}
	res := &hhResult{cstranslate: cfg.cstranslate, log: cfg.out + ".build-hh.log"}
	logf, err := os.Create(res.log)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "# build-hh %s -> %s (min-seq-id %g, coverage %g, threads %d; work %s)\n", cfg.db, cfg.out, cfg.minSeqID, cfg.cov, cfg.threads, tmp)
	step := func(name string, env []string, bin string, args ...string) error {
		fmt.Fprintf(logf, "$ %s%s %s\n", strings.Join(append(env, ""), " "), bin, strings.Join(args, " "))
		var errb bytes.Buffer
		c := exec.Command(bin, args...)
		c.Env = append(os.Environ(), env...)
		c.Stdout = logf
		c.Stderr = io.MultiWriter(logf, &errb)
		start := time.Now()
		err := c.Run()
		s := time.Since(start).Seconds()
		fmt.Fprintf(logf, "# %s: %.1f s\n", name, s)
		if err != nil {
			return fmt.Errorf("build-hh step %s (%s) failed: %v: %s; its output is in %s, the work directory %s is kept", name, filepath.Base(bin), err, lastLine(errb.Bytes()), res.log, tmp)
		}
		res.steps = append(res.steps, hhStep{name, s})
		return nil
	}
	seq, clu, th := filepath.Join(tmp, "seq"), filepath.Join(tmp, "clu"), strconv.Itoa(cfg.threads)
	if err := step("createdb", nil, cfg.mmseqs, "createdb", cfg.db, seq); err != nil {
		return nil, err
	}
	if err := step("cluster", nil, cfg.mmseqs, "cluster", seq, clu, filepath.Join(tmp, "tmp"),
		"--min-seq-id", fmt.Sprint(cfg.minSeqID), "-c", fmt.Sprint(cfg.cov), "--threads", th); err != nil {
		return nil, err
	}
	if res.clusters, err = sortFFindex(clu+".index", ""); err != nil {
		return nil, fmt.Errorf("build-hh: the clustering: %w", err)
	}
	// Every member in its cluster's A3M (--filter-msa 0), as the
	// project's MMseqs2 search keeps every hit; the mmseqs database is
	// the ffindex data file (entries \0-terminated).
	if err := step("result2msa", nil, cfg.mmseqs, "result2msa", seq, seq, clu, a3m+".ffdata",
		"--msa-format-mode", mode, "--filter-msa", "0", "--threads", th); err != nil {
		return nil, err
	}
	start := time.Now()
	n, err := sortFFindex(a3m+".ffdata.index", a3m+".ffindex")
	if err != nil {
		return nil, fmt.Errorf("build-hh step a3m index: %w", err)
	}
	if n != res.clusters {
		return nil, fmt.Errorf("build-hh step a3m index: %d A3M entries for %d clusters", n, res.clusters)
	}
	for _, p := range []string{a3m + ".ffdata.index", a3m + ".ffdata.dbtype"} {
		if err := os.Remove(p); err != nil {
			return nil, fmt.Errorf("build-hh step a3m index: %w", err)
		}
	}
	res.steps = append(res.steps, hhStep{"a3m index", time.Since(start).Seconds()})
	if err := step("cstranslate", []string{"OMP_NUM_THREADS=" + th}, cfg.cstranslate,
		"-f", "-x", "0.3", "-c", "4", "-I", "a3m", "-i", a3m, "-o", cs219,
		"-A", filepath.Join(cfg.hhData, "cs219.lib"), "-D", filepath.Join(cfg.hhData, "context_data.lib")); err != nil {
		return nil, err
	}
	if n, err := sortFFindex(cs219+".ffindex", cs219+".ffindex"); err != nil {
		return nil, fmt.Errorf("build-hh step cstranslate: %w", err)
	} else if n != res.clusters {
		return nil, fmt.Errorf("build-hh step cstranslate: %d cs219 entries for %d clusters; see %s", n, res.clusters, res.log)
	}
	if err := os.RemoveAll(tmp); err != nil {
		return nil, err
	}
	return res, nil
}

func buildHHCmd(args []string) {
	fs := flag.NewFlagSet("build-hh", flag.ExitOnError)
	var cfg hhConfig
	fs.StringVar(&cfg.db, "db", "/tmp/msa-search/db.fasta", "the FASTA database (build)")
	fs.StringVar(&cfg.out, "out", "/tmp/msa-search/hh/db", "the HH-suite database prefix: PREFIX_a3m.ffdata/.ffindex, PREFIX_cs219.ffdata/.ffindex, PREFIX.build-hh.log")
	fs.Float64Var(&cfg.minSeqID, "min-seq-id", 0.3, "mmseqs cluster --min-seq-id")
	fs.Float64Var(&cfg.cov, "cov", 0.8, "mmseqs cluster -c (coverage)")
	fs.IntVar(&cfg.threads, "threads", 2, "threads of mmseqs and cstranslate")
	fs.StringVar(&cfg.work, "work", "", "the parent of the mmseqs work directory (its sequence and cluster databases and tmp), removed when done (default: PREFIX's directory)")
	fs.BoolVar(&cfg.force, "force", false, "replace an existing database at -out")
	fs.Parse(args)
	start := time.Now()
	res, err := buildHH(cfg)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range res.steps {
		fmt.Printf("%-12s %8.1f s\n", s.name, s.seconds)
	}
	fmt.Printf("%s: %d clusters (min-seq-id %g, coverage %g) from %s; cstranslate %s; %.1f s in all; log %s\n",
		cfg.out, res.clusters, cfg.minSeqID, cfg.cov, cfg.db, res.cstranslate, time.Since(start).Seconds(), res.log)
}

// timed runs cmd under /usr/bin/time -v, appending its output to logf,
// and returns the wall seconds and peak RSS (MiB).
func timed(logf io.Writer, name string, args ...string) (float64, float64, error) {
	var errb bytes.Buffer
	c := exec.Command("/usr/bin/time", append([]string{"-v", name}, args...)...)
	c.Stdout = logf
	c.Stderr = io.MultiWriter(logf, &errb)
	fmt.Fprintf(logf, "$ %s %s\n", name, strings.Join(args, " "))
	start := time.Now()
	err := c.Run()
	wall := time.Since(start).Seconds()
	rss := 0.0
	if m := regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`).FindSubmatch(errb.Bytes()); m != nil {
		kb, _ := strconv.ParseFloat(string(m[1]), 64)
		rss = kb / 1024
	}
	if err != nil {
		tail := errb.String()
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return wall, rss, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, tail)
	}
	return wall, rss, nil
}

// manifestRow returns the search manifest's depth and Neff/L for id.
func manifestRow(dir, id string) (int, float64, float64, error) {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		return 0, 0, 0, err
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	head := strings.Split(lines[0], "\t")
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if f[0] != id {
			continue
		}
		d, _ := strconv.Atoi(f[col["depth"]])
		n, _ := strconv.ParseFloat(f[col["neff_per_l"]], 64)
		s, _ := strconv.ParseFloat(f[col["seconds"]], 64)
		return d, n, s, nil
	}
	return 0, 0, 0, fmt.Errorf("%s/manifest.tsv: no row for %s", dir, id)
}

func readNPY(path string, l int) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var pre [10]byte
	if _, err := io.ReadFull(br, pre[:]); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	hl := int(binary.LittleEndian.Uint16(pre[8:]))
	if _, err := br.Discard(hl); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := make([]float32, l*l)
	if err := binary.Read(br, binary.LittleEndian, p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

var header = "family\tsplit\ttool\tL\tsearch_s\tsearch_rss_mib\ttool_s\tdepth\tneff_per_l\tfallback\tpredict_s\tpredict_rss_mib\tlong_l5\tlong_l2\tlong_l\tplm_l5\tplm_l2\tplm_l"

func run(args []string) {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	db := fs.String("db", "/tmp/msa-search/db.fasta", "the database (build)")
	tools := fs.String("tools", "jackhmmer,mmseqs", "search tools, in order")
	split := fs.String("split", "validation", "the families' split (validation; test: read once)")
	bin := fs.String("bin", "/tmp/msa-search/contactmap", "the contactmap binary")
	work := fs.String("work", "/tmp/msa-search", "alignments, predictions and logs: WORK/TOOL/, WORK/pred-TOOL/")
	results := fs.String("results", "experiments/msa-search/results.tsv", "per-family rows (appended, resumable)")
	threads := fs.Int("threads", 2, "search threads")
	plm := fs.Bool("plm", false, "also plmDCA (predict --method plm) on the searched alignment")
	only := fs.String("families", "", "comma-separated families (default: every family of -split)")
	msaFlags := fs.String("msa-flags", "", "more flags of the search (contactmap msa), e.g. \"--iterations 3 --max-depth 3000\" (a settings trial)")
	predictFlags := fs.String("predict-flags", "", "more flags of both predictions (contactmap predict), e.g. \"--plm-max-rows 4000\" (a settings trial)")
	label := fs.String("label", "", "the trial's name: the tool column reads TOOL+LABEL and its files go to WORK/TOOL+LABEL/ (with -msa-flags or -predict-flags)")
	fs.Parse(args)
	fams, err := readSplit()
	if err != nil {
		log.Fatal(err)
	}
	want := familySet(*only)
	done := map[string]bool{}
	if data, err := os.ReadFile(*results); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			f := strings.Split(l, "\t")
			if len(f) > 3 && f[0] != "family" {
				done[f[0]+"\t"+f[2]] = true
			}
		}
	}
	w, err := os.OpenFile(*results, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	if st, _ := w.Stat(); st.Size() == 0 {
		fmt.Fprintln(w, header)
	}
	os.Setenv("GOMAXPROCS", strconv.Itoa(*threads))
	drop := dropped(fams)
	for _, f := range fams {
		if f.split != *split || drop[f.name] || len(want) > 0 && !want[f.name] {
			continue
		}
		t, truth := familyTarget(f.structure)
		l := len(t.Seq)
		for _, tool := range strings.Split(*tools, ",") {
			name := tool
			if *label != "" {
				name += "+" + *label
			}
			if done[f.name+"\t"+name] {
				continue
			}
			msaDir := filepath.Join(*work, name)
			predDir := filepath.Join(*work, "pred-"+name)
			for _, d := range []string{msaDir, predDir} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					log.Fatal(err)
				}
			}
			lf, err := os.OpenFile(filepath.Join(*work, "run-"+name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				log.Fatal(err)
			}
			// The search alone (forced: a rerun measures it again).
			msaArgs := append([]string{"msa", "--db", *db, "--search", tool, "--threads", strconv.Itoa(*threads), "--force", "--out", msaDir}, strings.Fields(*msaFlags)...)
			ss, srss, err := timed(lf, *bin, append(msaArgs, f.structure)...)
			if err != nil {
				log.Fatalf("%s %s: %v", f.name, tool, err)
			}
			depth, neff, toolS, err := manifestRow(msaDir, t.ID)
			if err != nil {
				log.Fatal(err)
			}
			// predict --db: reuses the alignment, predicts with the msa
			// network or falls back under Neff/L 0.1.
			predArgs := append([]string{"predict", "--force", "--db", *db, "--search", tool, "--msa-dir", msaDir, "--out", predDir, "--format", "npy"}, strings.Fields(*predictFlags)...)
			ps, prss, err := timed(lf, *bin, append(predArgs, f.structure)...)
			if err != nil {
				log.Fatalf("%s %s: %v", f.name, tool, err)
			}
			p, err := readNPY(filepath.Join(predDir, t.ID+".npy"), l)
			if err != nil {
				log.Fatal(err)
			}
			m := metrics.Evaluate(f.name, p, truth)
			plmS := [3]string{"", "", ""}
			if *plm {
				pd := filepath.Join(*work, "plm-"+name)
				a3m := filepath.Join(msaDir, t.ID+".a3m")
				if a, err := msa.ReadFile(a3m); err == nil && a.N() > 1 {
					if _, _, err := timed(lf, *bin, append(append([]string{"predict", "--force", "--method", "plm", "--out", pd, "--format", "npy"}, strings.Fields(*predictFlags)...), a3m)...); err != nil {
						log.Fatalf("%s %s plm: %v", f.name, tool, err)
					}
					q, err := readNPY(filepath.Join(pd, t.ID+".npy"), l)
					if err != nil {
						log.Fatal(err)
					}
					mp := metrics.Evaluate(f.name, q, truth)
					for i, fr := range []metrics.Fraction{metrics.TopL5, metrics.TopL2, metrics.TopL1} {
						plmS[i] = fmt.Sprintf("%.4f", mp.TopL[metrics.Long][fr])
					}
				}
			}
			lf.Close()
			fallback := neff < predict.MinNeffL
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%.1f\t%.0f\t%.1f\t%d\t%.3f\t%t\t%.1f\t%.0f\t%.4f\t%.4f\t%.4f\t%s\t%s\t%s\n",
				f.name, f.split, name, l, ss, srss, toolS, depth, neff, fallback, ps, prss,
				m.TopL[metrics.Long][metrics.TopL5], m.TopL[metrics.Long][metrics.TopL2], m.TopL[metrics.Long][metrics.TopL1],
				plmS[0], plmS[1], plmS[2])
			log.Printf("%s %s L %d: search %.1f s (%.0f MiB), depth %d, Neff/L %.2f, predict %.1f s (%.0f MiB), long top-L/5 %.3f",
				f.name, name, l, ss, srss, depth, neff, ps, prss, m.TopL[metrics.Long][metrics.TopL5])
		}
	}
}

// baseline reads experiments/msa-net's per-family scores of one run
// (kind, seed) from its evaluation JSON: family ID -> [L/5, L/2, L].
func baseline(path, kind string, seed int) (map[string][3]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d struct {
		Runs []struct {
			Kind   string
			Seed   int
			Items  []string
			Scores map[string][]float64
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, r := range d.Runs {
		if r.Kind != kind || r.Seed != seed {
			continue
		}
		out := map[string][3]float64{}
		for i, id := range r.Items {
			out[id] = [3]float64{r.Scores["long top-L/5"][i], r.Scores["long top-L/2"][i], r.Scores["long top-L/1"][i]}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: %w %s seed %d", path, errNoRun, kind, seed)
}

// errNoRun is wrapped by baseline's error when the evaluation holds no
// run of that kind and seed.
var errNoRun = errors.New("no run")

// kindEVfold is experiments/msa-net/eval's kind of freecontact's EVfold
// mode.
const kindEVfold = "freecontact EVfold"

// familyTarget reads a family's structure: its one chain and the
// chain's C-beta contacts (the truth every predictor is scored against).
func familyTarget(structure string) (predict.Target, *pdb.Contacts) {
	ts, err := predict.Resolve(structure, "")
	if err != nil || len(ts) != 1 {
		log.Fatalf("%s: %v (%d chains)", structure, err, len(ts))
	}
	return ts[0], pdb.NewContacts(ts[0].Residues, predict.PlmContacts)
}

// familySet is the set of a -families flag's comma-separated names
// (empty: every family).
func familySet(list string) map[string]bool {
	want := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		if s != "" {
			want[s] = true
		}
	}
	return want
}

// chainID turns a split family name into experiments/msa-net's chain ID.
func chainID(name string) string {
	if strings.Contains(name, "_") {
		return name
	}
	return strings.ToUpper(name[:4]) + "_" + name[4:]
}

func report(args []string) {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	results := fs.String("results", "experiments/msa-search/results.tsv", "the run's rows")
	base := fs.String("baseline", "experiments/msa-net/eps2-validation.json", "experiments/msa-net's evaluation (plmDCA channel at 0.01, as predict computes it)")
	bl := fs.String("baselines", "experiments/msa-search/results-baselines.tsv", "the baselines subcommand's rows (freecontact and -|i-j| on the searched alignments; a missing file: no such rows)")
	fs.Parse(args)
	if err := writeReport(os.Stdout, *results, *base, *bl); err != nil {
		log.Fatal(err)
	}
}

// writeReport writes report's Markdown to w from the run's rows
// (results), experiments/msa-net's evaluation (base) and the baselines
// subcommand's rows (bl; a missing file holds none).
func writeReport(w io.Writer, results, base, bl string) error {
	data, err := os.ReadFile(results)
	if err != nil {
		return err
	}
	own, err := baseline(base, "scnn", 2)
	if err != nil {
		return err
	}
	single, err := baseline(base, "single-sequence ensemble", 1)
	if err != nil {
		return err
	}
	plmOwn, err := baseline(base, "plmDCA", 1)
	if err != nil {
		return err
	}
	// freecontact's EVfold mode on the benchmark's own alignments, where
	// the evaluation holds that run (eps2-validation.json does not).
	fcOwn, err := baseline(base, kindEVfold, 1)
	if err != nil && !errors.Is(err, errNoRun) {
		return err
	}
	bls, err := readBaselines(bl)
	if err != nil {
		return err
	}
	type row struct {
		fam                          string
		l                            int
		searchS, rss, predS, predRSS float64
		depth                        int
		neff                         float64
		fallback                     bool
		p, plm                       [3]float64
		hasPlm                       bool
	}
	byTool := map[string][]row{}
	var tools []string
	fams, err := readSplit()
	if err != nil {
		return err
	}
	drop := dropped(fams)
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Split(l, "\t")
		if drop[f[0]] {
			continue
		}
		var r row
		r.fam = f[0]
		r.l, _ = strconv.Atoi(f[3])
		r.searchS, _ = strconv.ParseFloat(f[4], 64)
		r.rss, _ = strconv.ParseFloat(f[5], 64)
		r.depth, _ = strconv.Atoi(f[7])
		r.neff, _ = strconv.ParseFloat(f[8], 64)
		r.fallback = f[9] == "true"
		r.predS, _ = strconv.ParseFloat(f[10], 64)
		r.predRSS, _ = strconv.ParseFloat(f[11], 64)
		for i := range 3 {
			r.p[i], _ = strconv.ParseFloat(f[12+i], 64)
			if len(f) > 15+i && f[15+i] != "" {
				r.plm[i], _ = strconv.ParseFloat(f[15+i], 64)
				r.hasPlm = true
			}
		}
		if _, ok := byTool[f[2]]; !ok {
			tools = append(tools, f[2])
		}
		byTool[f[2]] = append(byTool[f[2]], r)
	}
	names := []string{"top-L/5", "top-L/2", "top-L"}
	fmt.Fprintln(w, "Long-range (|i-j| >= 24) precision, C-beta contacts under 8 Å, mean over the families searched; paired differences with percentile bootstrap 95% intervals over families (10,000 resamples).")
	for _, tool := range tools {
		rs := byTool[tool]
		n := len(rs)
		fmt.Fprintf(w, "\n### %s (n = %d families)\n\n", tool, n)
		fmt.Fprintln(w, "| predictor | top-L/5 | top-L/2 | top-L |")
		fmt.Fprintln(w, "|---|---:|---:|---:|")
		col := func(get func(r row) ([3]float64, bool)) ([3][]float64, int) {
			var out [3][]float64
			k := 0
			for _, r := range rs {
				v, ok := get(r)
				if !ok {
					continue
				}
				k++
				for i := range 3 {
					out[i] = append(out[i], v[i])
				}
			}
			return out, k
		}
		search, _ := col(func(r row) ([3]float64, bool) { return r.p, true })
		ownS, _ := col(func(r row) ([3]float64, bool) { v, ok := own[chainID(r.fam)]; return v, ok })
		plmO, _ := col(func(r row) ([3]float64, bool) { v, ok := plmOwn[chainID(r.fam)]; return v, ok })
		sing, _ := col(func(r row) ([3]float64, bool) { v, ok := single[chainID(r.fam)]; return v, ok })
		plmS, kp := col(func(r row) ([3]float64, bool) { return r.plm, r.hasPlm })
		line := func(name string, v [3][]float64) {
			if len(v[0]) == 0 {
				return
			}
			fmt.Fprintf(w, "| %s | %.3f | %.3f | %.3f |\n", name, mean(v[0]), mean(v[1]), mean(v[2]))
		}
		line("`predict --db` ("+tool+" alignment, msa network)", search)
		if len(ownS[0]) == n {
			line("msa network on the benchmark's own alignment", ownS)
		}
		if kp > 0 {
			line(fmt.Sprintf("plmDCA on the searched alignment (n = %d)", kp), plmS)
		}
		// The baselines subcommand's rows for this tool's alignments:
		// freecontact and -|i-j| on the families it scored.
		fcRows := bls[tool]
		fcS, kf := col(func(r row) ([3]float64, bool) { b, ok := fcRows[r.fam]; return b.fc, ok })
		sepS, _ := col(func(r row) ([3]float64, bool) { b, ok := fcRows[r.fam]; return b.sep, ok })
		searchFC, _ := col(func(r row) ([3]float64, bool) { _, ok := fcRows[r.fam]; return r.p, ok })
		fcO, _ := col(func(r row) ([3]float64, bool) { v, ok := fcOwn[chainID(r.fam)]; return v, ok })
		if kf > 0 {
			line(fmt.Sprintf("freecontact (EVfold) on the searched alignment (n = %d)", kf), fcS)
			sep := `-\|i-j\| (sequence separation)`
			if kf < n {
				sep = fmt.Sprintf(`-\|i-j\| (sequence separation, n = %d)`, kf)
			}
			line(sep, sepS)
		}
		if len(plmO[0]) == n {
			line("plmDCA on the benchmark's own alignment", plmO)
		}
		if len(fcO[0]) == n {
			line("freecontact (EVfold) on the benchmark's own alignment", fcO)
		}
		if len(sing[0]) == n {
			line("single-sequence default (no --db)", sing)
		}
		diff := func(name string, a, b [3][]float64) {
			if len(a[0]) != len(b[0]) || len(a[0]) == 0 {
				return
			}
			fmt.Fprintf(w, "\n%s:", name)
			for i := range 3 {
				d := make([]float64, len(a[i]))
				for j := range d {
					d[j] = a[i][j] - b[i][j]
				}
				lo, hi := bootstrap(d, 10000, 7)
				fmt.Fprintf(w, " %s %+.3f [%+.3f, %+.3f];", names[i], mean(d), lo, hi)
			}
			fmt.Fprintln(w)
		}
		if len(ownS[0]) == n {
			diff("- `predict --db` − own alignment", search, ownS)
		}
		if len(sing[0]) == n {
			diff("- `predict --db` − single-sequence default", search, sing)
		}
		if kf > 0 {
			name := "- `predict --db` − freecontact"
			if kf < n {
				name += fmt.Sprintf(" (n = %d)", kf)
			}
			diff(name, searchFC, fcS)
		}
		var ss, ps, rss, prss []float64
		var fb, le300 int
		var maxS float64
		for _, r := range rs {
			ss = append(ss, r.searchS)
			ps = append(ps, r.predS)
			rss = append(rss, r.rss)
			prss = append(prss, r.predRSS)
			if r.fallback {
				fb++
			}
			if r.l <= 300 {
				le300++
				maxS = math.Max(maxS, r.searchS+r.predS)
			}
		}
		fmt.Fprintf(w, "\nTime per query (wall, 2 threads): search mean %.1f s (median %.1f, max %.1f); predict from the alignment mean %.1f s (max %.1f); search + predict max %.1f s over the %d queries with L <= 300. Peak RSS: search max %.0f MiB, predict max %.0f MiB. Fallbacks to the single-sequence model (Neff/L < 0.1): %d.\n",
			mean(ss), median(ss), maxOf(ss), mean(ps), maxOf(ps), maxS, le300, maxOf(rss), maxOf(prss), fb)
	}
	// The tools against each other, on the families both have.
	for i, a := range tools {
		for _, b := range tools[i+1:] {
			pb := map[string][3]float64{}
			for _, r := range byTool[b] {
				pb[r.fam] = r.p
			}
			var d [3][]float64
			for _, r := range byTool[a] {
				if q, ok := pb[r.fam]; ok {
					for k := range 3 {
						d[k] = append(d[k], r.p[k]-q[k])
					}
				}
			}
			if len(d[0]) == 0 {
				continue
			}
			fmt.Fprintf(w, "\n`predict --db`, %s − %s (n = %d families):", a, b, len(d[0]))
			for k := range 3 {
				lo, hi := bootstrap(d[k], 10000, 7)
				fmt.Fprintf(w, " %s %+.3f [%+.3f, %+.3f];", names[k], mean(d[k]), lo, hi)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprint(w, "\n### Per family\n\n")
	fmt.Fprintln(w, "| family | tool | L | search s | search MiB | depth | Neff/L | predict s | --db top-L/5 | own aln top-L/5 | single top-L/5 |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, tool := range tools {
		for _, r := range byTool[tool] {
			fmt.Fprintf(w, "| %s | %s | %d | %.1f | %.0f | %d | %.2f | %.1f | %.3f | %.3f | %.3f |\n", r.fam, tool, r.l, r.searchS, r.rss, r.depth, r.neff, r.predS, r.p[0], own[chainID(r.fam)][0], single[chainID(r.fam)][0])
		}
	}
	return nil
}

const baselinesHeader = "family\tsplit\tlabel\tL\tdepth\tfc_seconds\tfc_l5\tfc_l2\tfc_l\tsep_l5\tsep_l2\tsep_l"

// sepMap is the sequence-separation predictor's l x l map: score(i, j)
// = -|i-j|, the nearer pair the higher.
func sepMap(l int) []float32 {
	p := make([]float32, l*l)
	for i := range l {
		for j := range l {
			p[i*l+j] = -float32(max(i-j, j-i))
		}
	}
	return p
}

// toFloat32 converts freecontact's scores to the type metrics.Evaluate
// ranks (monotone: the order is kept, exact ties aside).
func toFloat32(s []float64) []float32 {
	p := make([]float32, len(s))
	for k, v := range s {
		p[k] = float32(v)
	}
	return p
}

// alignmentRows reads a searched alignment (msa.ReadFile: A3M insertions
// dropped), reduced to the query's columns, as freecontact takes it: one
// string a row, the query first.
func alignmentRows(path string) ([]string, error) {
	a, err := msa.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a = a.QueryColumns()
	rows := make([]string, a.N())
	for k, r := range a.Rows {
		rows[k] = string(r)
	}
	return rows, nil
}

// baselineRow is a row of the baselines subcommand's results: long-range
// top-L/5, L/2, L of freecontact (EVfold) and of -|i-j|.
type baselineRow struct {
	l, depth int
	seconds  float64
	fc, sep  [3]float64
}

// readBaselines reads the baselines subcommand's results: label ->
// family -> row. A missing file holds no rows.
func readBaselines(path string) (map[string]map[string]baselineRow, error) {
	out := map[string]map[string]baselineRow{}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) == 0 || lines[0] != baselinesHeader {
		return nil, fmt.Errorf("%s: the first line is not the header %q", path, baselinesHeader)
	}
	want := len(strings.Split(baselinesHeader, "\t"))
	for i, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != want {
			return nil, fmt.Errorf("%s line %d: %d fields, want %d", path, i+2, len(f), want)
		}
		var r baselineRow
		var errs []error
		var e error
		r.l, e = strconv.Atoi(f[3])
		errs = append(errs, e)
		r.depth, e = strconv.Atoi(f[4])
		errs = append(errs, e)
		r.seconds, e = strconv.ParseFloat(f[5], 64)
		errs = append(errs, e)
		for k := range 3 {
			r.fc[k], e = strconv.ParseFloat(f[6+k], 64)
			errs = append(errs, e)
			r.sep[k], e = strconv.ParseFloat(f[9+k], 64)
			errs = append(errs, e)
		}
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+2, err)
		}
		if out[f[2]] == nil {
			out[f[2]] = map[string]baselineRow{}
		}
		if _, dup := out[f[2]][f[0]]; dup {
			return nil, fmt.Errorf("%s line %d: a second row for %s, %s", path, i+2, f[0], f[2])
		}
		out[f[2]][f[0]] = r
	}
	return out, nil
}

// baselines scores the model-free predictors on the alignments of one
// arm of run: freecontact's EVfold mode and -|i-j|.
func baselines(args []string) {
	fs := flag.NewFlagSet("baselines", flag.ExitOnError)
	split := fs.String("split", "validation", "the families' split")
	work := fs.String("work", "/tmp/msa-search", "run's work directory: the alignments are WORK/LABEL/<chain ID>.a3m")
	label := fs.String("label", "jackhmmer+n5plm4000", "the arm: run's tool column (TOOL or TOOL+LABEL), the directory of its alignments")
	results := fs.String("results", "experiments/msa-search/results-baselines.tsv", "per-family rows (appended, resumable)")
	threads := fs.Int("threads", 1, "freecontact threads")
	only := fs.String("families", "", "comma-separated families (default: every family of -split)")
	fs.Parse(args)
	fams, err := readSplit()
	if err != nil {
		log.Fatal(err)
	}
	want := familySet(*only)
	done, err := readBaselines(*results)
	if err != nil {
		log.Fatal(err)
	}
	w, err := os.OpenFile(*results, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	if st, err := w.Stat(); err != nil {
		log.Fatal(err)
	} else if st.Size() == 0 {
		fmt.Fprintln(w, baselinesHeader)
	}
	drop := dropped(fams)
	var wrote, skipped, left int
	for _, f := range fams {
		if f.split != *split || drop[f.name] || len(want) > 0 && !want[f.name] {
			continue
		}
		if _, ok := done[*label][f.name]; ok {
			skipped++
			continue
		}
		t, truth := familyTarget(f.structure)
		l := len(t.Seq)
		path := filepath.Join(*work, *label, t.ID+".a3m")
		rows, err := alignmentRows(path)
		if err != nil {
			log.Printf("%s %s: left out: %v", f.name, *label, err)
			left++
			continue
		}
		if rows[0] != t.Seq {
			log.Printf("%s %s: left out: %s's query (%d columns) is not the structure chain's sequence (%d residues)", f.name, *label, path, len(rows[0]), l)
			left++
			continue
		}
		s, d, err := freecontact.Run(rows, "evfold", *threads)
		if errors.Is(err, freecontact.ErrNotInstalled) {
			log.Fatal(err)
		}
		if err != nil {
			log.Printf("%s %s: left out: freecontact on %s (%d rows): %v", f.name, *label, path, len(rows), err)
			left++
			continue
		}
		fc := metrics.Evaluate(f.name, toFloat32(s), truth)
		sep := metrics.Evaluate(f.name, sepMap(l), truth)
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%.1f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n",
			f.name, f.split, *label, l, len(rows), d.Seconds(),
			fc.TopL[metrics.Long][metrics.TopL5], fc.TopL[metrics.Long][metrics.TopL2], fc.TopL[metrics.Long][metrics.TopL1],
			sep.TopL[metrics.Long][metrics.TopL5], sep.TopL[metrics.Long][metrics.TopL2], sep.TopL[metrics.Long][metrics.TopL1])
		wrote++
		log.Printf("%s %s L %d depth %d: freecontact %.1f s, long top-L/5 %.3f; -|i-j| %.3f",
			f.name, *label, l, len(rows), d.Seconds(), fc.TopL[metrics.Long][metrics.TopL5], sep.TopL[metrics.Long][metrics.TopL5])
	}
	log.Printf("%s: %d rows written, %d already in %s, %d left out", *label, wrote, skipped, *results, left)
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func median(x []float64) float64 {
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	n := len(y)
	if n%2 == 1 {
		return y[n/2]
	}
	return (y[n/2-1] + y[n/2]) / 2
}

func maxOf(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}

// bootstrap is the percentile 95% interval of the mean of x.
func bootstrap(x []float64, n int, seed uint64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	ms := make([]float64, n)
	for b := range ms {
		s := 0.0
		for range x {
			s += x[rng.IntN(len(x))]
		}
		ms[b] = s / float64(len(x))
	}
	sort.Float64s(ms)
	return ms[int(math.Floor(0.025*float64(n)))], ms[int(math.Ceil(0.975*float64(n)))-1]
}
