// Package search builds alignments of protein sequences by homology
// search with the field's tools, run as subprocesses: jackhmmer (HMMER)
// and MMseqs2 against a FASTA database (plain or gzip), HHblits (HH-suite)
// against an HH-suite database; and of RNA sequences with nhmmer (HMMER)
// against a FASTA database of nucleotide sequences. No search algorithm is implemented here:
// the tools search; this package writes their inputs, runs them, reads
// their outputs (Stockholm, A3M), anchors them on the query's columns,
// filters the hits (Filter, as hhfilter's -cov and -qid) and writes the
// result as A3M, PSICOV .aln or Stockholm.
//
//	s, err := search.New(search.Options{Tool: search.Jackhmmer, DB: "uniref50.fasta.gz"})
//	defer s.Close()
//	a, err := s.Search(ctx, search.Query{Name: "1abcA", Seq: "MKV..."}, logFile)
package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/pipeline/msa"
)

// Tool is a search program.
type Tool string

// The tools Search runs.
const (
	Jackhmmer Tool = "jackhmmer"
	MMseqs    Tool = "mmseqs"
	HHblits   Tool = "hhblits"
	// Nhmmer searches RNA (or DNA) sequences: HMMER's nhmmer, one pass
	// of a profile built from the query, top strand only (--watson).
	Nhmmer Tool = "nhmmer"
)

// Tools are the tools, the default first. jackhmmer is the default,
// measured best on the validation families (experiments/msa-search:
// the msa network's long-range top-L/5 0.762 from its alignments, 0.603
// from MMseqs2's).
var Tools = []Tool{Jackhmmer, MMseqs, HHblits}

// NucleotideTools are the tools of RNA queries (not among Tools, which
// are the protein tools ParseTool reads).
var NucleotideTools = []Tool{Nhmmer}

// DefaultTool is the tool a run without --search uses.
const DefaultTool = Jackhmmer

// DefaultEValue is the inclusion E-value of all three tools (jackhmmer
// --incE, MMseqs2 -e, HHblits -e).
const DefaultEValue = 0.001

// Package is the Debian package that installs the tool.
func (t Tool) Package() string {
	switch t {
	case Jackhmmer, Nhmmer:
		return "hmmer"
	case MMseqs:
		return "mmseqs2"
	case HHblits:
		return "hhsuite"
	}
	return ""
}

// DefaultIterations is the tool's own default number of iterations
// (jackhmmer -N 5, MMseqs2 --num-iterations 1, HHblits -n 2).
func (t Tool) DefaultIterations() int {
	switch t {
	case Jackhmmer:
		return 5
	case HHblits:
		return 2
	}
	return 1
}

// ParseTool reads a tool's name.
func ParseTool(s string) (Tool, error) {
	for _, t := range Tools {
		if strings.EqualFold(s, string(t)) {
			return t, nil
		}
	}
	if strings.EqualFold(s, "mmseqs2") {
		return MMseqs, nil
	}
	names := make([]string, len(Tools))
	for i, t := range Tools {
		names[i] = string(t)
	}
	return "", fmt.Errorf("unknown search tool %q (%s)", s, strings.Join(names, ", "))
}

// Options configure a Searcher.
type Options struct {
	Tool Tool
	// Bin is the tool's program; "" finds the tool's name on PATH.
	Bin string
	// DB is the database: a FASTA file (plain or gzip) for jackhmmer and
	// MMseqs2, an HH-suite database prefix for HHblits.
	DB string
	// DBIndex is MMseqs2's database and index directory; "" is DB's
	// name with ".mmseqs" added, beside it, built there once.
	DBIndex string
	// Iterations of the search; 0 is the tool's default
	// (Tool.DefaultIterations).
	Iterations int
	// EValue is the inclusion E-value; 0 is DefaultEValue.
	EValue float64
	// Threads the tool uses; 0 is the tool's default (jackhmmer and
	// HHblits 2, MMseqs2 every core).
	Threads int
	// MaxSeqs is MMseqs2's --max-seqs, the most hits its prefilter
	// passes on; 0 is DefaultMaxSeqs (the tool's own 300 would cap an
	// alignment at 301 rows).
	MaxSeqs int
}

// DefaultMaxSeqs is MMseqs2's --max-seqs here: ColabFold's 10,000.
const DefaultMaxSeqs = 10000

// ErrNoTool marks a tool that cannot be found.
var ErrNoTool = errors.New("search tool not found")

// ErrTool marks a tool that failed (exited non-zero, or wrote no
// alignment that can be read).
var ErrTool = errors.New("search tool failed")

// Searcher runs one tool against one database.
type Searcher struct {
	opt     Options
	bin     string
	version string
	work    string // temporary directory of the run

	mu sync.Mutex
	db string // the database as the tool reads it, once prepared
}

// New finds the tool and its version and checks the database; the
// database is prepared (decompressed for jackhmmer, indexed for MMseqs2)
// at the first search. Close removes the Searcher's temporary files.
func New(opt Options) (*Searcher, error) {
	if opt.Tool == "" {
		opt.Tool = DefaultTool
	}
	if opt.Tool.Package() == "" {
		if _, err := ParseTool(string(opt.Tool)); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("unknown search tool %q", opt.Tool)
	}
	if opt.Tool == Nhmmer && opt.Iterations > 1 {
		return nil, fmt.Errorf("nhmmer searches once: %d iterations asked", opt.Iterations)
	}
	if opt.Iterations <= 0 {
		opt.Iterations = opt.Tool.DefaultIterations()
	}
	if opt.EValue <= 0 {
		opt.EValue = DefaultEValue
	}
	if opt.MaxSeqs <= 0 {
		opt.MaxSeqs = DefaultMaxSeqs
	}
	bin, err := findBin(opt.Tool, opt.Bin)
	if err != nil {
		return nil, err
	}
	if opt.DB == "" {
		return nil, fmt.Errorf("no database: give --db (%s)", dbKind(opt.Tool))
	}
	if opt.Tool == HHblits {
		if !hhDatabase(opt.DB) {
			return nil, fmt.Errorf("%s: not an HH-suite database prefix: no %s_a3m.ffdata or %s_hhm.ffdata (%s)", opt.DB, opt.DB, opt.DB, dbKind(opt.Tool))
		}
	} else if st, err := os.Stat(opt.DB); err != nil {
		return nil, fmt.Errorf("database: %w (%s)", err, dbKind(opt.Tool))
	} else if st.IsDir() {
		return nil, fmt.Errorf("database %s is a directory (%s)", opt.DB, dbKind(opt.Tool))
	}
	work, err := os.MkdirTemp("", "contactmap-search-")
	if err != nil {
		return nil, err
	}
	return &Searcher{opt: opt, bin: bin, version: toolVersion(opt.Tool, bin), work: work}, nil
}

func dbKind(t Tool) string {
	if t == HHblits {
		return "hhblits takes an HH-suite database prefix, e.g. UniRef30_2023_02"
	}
	return string(t) + " takes a FASTA file of sequences, plain or gzip"
}

func hhDatabase(prefix string) bool {
	for _, s := range []string{"_a3m.ffdata", "_hhm.ffdata"} {
		if _, err := os.Stat(prefix + s); err == nil {
			return true
		}
	}
	return false
}

// findBin finds the tool's program: bin, or its name on PATH. The error
// names the Debian package that installs it.
func findBin(t Tool, bin string) (string, error) {
	install := fmt.Sprintf("install the Debian package %s (apt-get install %s)", t.Package(), t.Package())
	if bin == "" {
		p, err := exec.LookPath(string(t))
		if err != nil {
			return "", fmt.Errorf("%w: %s is not on PATH: %s, or give its path with --search-bin", ErrNoTool, t, install)
		}
		return p, nil
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%w: --search-bin %s: %v: %s, or give the path of %s", ErrNoTool, bin, errors.Unwrap(err), install, t)
	}
	return p, nil
}

var versionRE = regexp.MustCompile(`\d+(\.\d+)+[a-z]?`)

// toolVersion asks the program its version: "HMMER 3.3.2", "MMseqs2
// 14-7e284+ds-1+b2", "HHblits 3.3.0"; "unknown" where it does not say.
func toolVersion(t Tool, bin string) string {
	var args []string
	var name string
	switch t {
	case Jackhmmer, Nhmmer:
		args, name = []string{"-h"}, "HMMER"
	case MMseqs:
		args, name = []string{"version"}, "MMseqs2"
	case HHblits:
		args, name = []string{"-h"}, "HHblits"
	}
	out, _ := exec.Command(bin, args...).CombinedOutput()
	head := out[:min(len(out), 4096)]
	if t == MMseqs {
		if f := strings.Fields(string(head)); len(f) == 1 {
			return name + " " + f[0]
		}
		return name + " unknown"
	}
	if v := versionRE.Find(head); v != nil {
		return name + " " + string(v)
	}
	return name + " unknown"
}

// Tool is the tool the Searcher runs.
func (s *Searcher) Tool() Tool { return s.opt.Tool }

// Version is the tool's version ("HMMER 3.3.2").
func (s *Searcher) Version() string { return s.version }

// Settings names the search's settings, for the manifest.
func (s *Searcher) Settings() string {
	t := "default"
	if s.opt.Threads > 0 {
		t = strconv.Itoa(s.opt.Threads)
	}
	m := ""
	if s.opt.Tool == MMseqs {
		m = fmt.Sprintf(" max-seqs=%d", s.opt.MaxSeqs)
	}
	return fmt.Sprintf("iterations=%d evalue=%g threads=%s%s", s.opt.Iterations, s.opt.EValue, t, m)
}

// Close removes the Searcher's temporary files.
func (s *Searcher) Close() error { return os.RemoveAll(s.work) }

// Query is one sequence to search with.
type Query struct {
	Name string // a name without white space, for the tool's input
	Seq  string
}

// ErrQuery marks a query the tools cannot take.
var ErrQuery = errors.New("bad query")

func checkQuery(t Tool, q Query) (string, error) {
	seq := strings.ToUpper(strings.TrimSpace(q.Seq))
	if seq == "" {
		return "", fmt.Errorf("%w: %s: empty sequence", ErrQuery, q.Name)
	}
	for i := 0; i < len(seq); i++ {
		if c := seq[i]; c < 'A' || c > 'Z' {
			return "", fmt.Errorf("%w: %s: %q at position %d is not a residue letter", ErrQuery, q.Name, c, i+1)
		}
		if t == Nhmmer && !strings.ContainsRune(nucleotides, rune(seq[i])) {
			return "", fmt.Errorf("%w: %s: %q at position %d is not a nucleotide letter (%s)", ErrQuery, q.Name, seq[i], i+1, nucleotides)
		}
	}
	return seq, nil
}

// nucleotides are the letters nhmmer's queries may hold: the bases and
// IUPAC's ambiguity codes.
const nucleotides = "ACGTUNRYKMSWBDHV"

// Search runs the tool for q and returns its alignment, anchored on the
// query, unfiltered. The tool's standard output and error go to log.
func (s *Searcher) Search(ctx context.Context, q Query, log io.Writer) (*Alignment, error) {
	seq, err := checkQuery(s.opt.Tool, q)
	if err != nil {
		return nil, err
	}
	db, err := s.database(ctx, log)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(s.work, "query-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	name := strings.Join(strings.Fields(q.Name), "_")
	if name == "" {
		name = "query"
	}
	qfa := filepath.Join(dir, "query.fasta")
	if err := os.WriteFile(qfa, []byte(">"+name+"\n"+seq+"\n"), 0o644); err != nil {
		return nil, err
	}
	var out string
	var parse func([]byte, string) (*Alignment, error)
	o := s.opt
	switch o.Tool {
	case Jackhmmer:
		out, parse = filepath.Join(dir, "out.sto"), ParseStockholm
		args := []string{"-N", strconv.Itoa(o.Iterations), "--incE", fmt.Sprint(o.EValue), "--incdomE", fmt.Sprint(o.EValue)}
		if o.Threads > 0 {
			args = append(args, "--cpu", strconv.Itoa(o.Threads))
		}
		args = append(args, "-A", out, "--noali", "-o", os.DevNull, qfa, db)
		if err := s.run(ctx, log, args...); err != nil {
			return nil, err
		}
	case MMseqs:
		out, parse = filepath.Join(dir, "out.a3m"), ParseA3M
		qdb, res := filepath.Join(dir, "q"), filepath.Join(dir, "res")
		threads := []string{}
		if o.Threads > 0 {
			threads = []string{"--threads", strconv.Itoa(o.Threads)}
		}
		steps := [][]string{
			{"createdb", qfa, qdb},
			append([]string{"search", qdb, db, res, filepath.Join(dir, "tmp"), "--num-iterations", strconv.Itoa(o.Iterations), "-e", fmt.Sprint(o.EValue), "--max-seqs", strconv.Itoa(o.MaxSeqs)}, threads...),
			append([]string{"result2msa", qdb, db, res, out, "--msa-format-mode", "6", "--filter-msa", "0"}, threads...),
		}
		for _, a := range steps {
			if err := s.run(ctx, log, a...); err != nil {
				return nil, err
			}
		}
	case Nhmmer:
		out = filepath.Join(dir, "out.sto")
		tbl := filepath.Join(dir, "hits.tbl")
		parse = func(data []byte, path string) (*Alignment, error) {
			t, err := os.ReadFile(tbl)
			if err != nil {
				return nil, fmt.Errorf("%s: its table of hits: %v", path, err)
			}
			first, err := NhmmerFirstState(t, "nhmmer's table of hits")
			if err != nil {
				return nil, err
			}
			return ParseStockholmRF(data, path, name, seq, first)
		}
		e := fmt.Sprint(o.EValue)
		// Reporting and inclusion at one threshold, so that the table
		// lists the alignment's hits. --rna: a query of only A, C and G
		// leaves nhmmer unable to guess its alphabet.
		args := []string{"--rna", "--watson", "-E", e, "--incE", e, "--tblout", tbl}
		if o.Threads > 0 {
			args = append(args, "--cpu", strconv.Itoa(o.Threads))
		}
		args = append(args, "-A", out, "--noali", "-o", os.DevNull, qfa, db)
		if err := s.run(ctx, log, args...); err != nil {
			return nil, err
		}
	case HHblits:
		out, parse = filepath.Join(dir, "out.a3m"), ParseA3M
		args := []string{"-i", qfa, "-d", db, "-oa3m", out, "-n", strconv.Itoa(o.Iterations), "-e", fmt.Sprint(o.EValue), "-all", "-o", os.DevNull}
		if o.Threads > 0 {
			args = append(args, "-cpu", strconv.Itoa(o.Threads))
		}
		if err := s.run(ctx, log, args...); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(out)
	if errors.Is(err, os.ErrNotExist) && (o.Tool == Jackhmmer || o.Tool == Nhmmer) {
		// jackhmmer and nhmmer write no alignment where nothing is
		// included.
		return &Alignment{Names: []string{name}, Rows: []string{seq}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s wrote no alignment: %v", ErrTool, o.Tool, err)
	}
	defer f.Close()
	data, err := fileio.ReadText(f, msa.MaxBytes, msa.MaxLine)
	if err != nil {
		return nil, fmt.Errorf("%w: %s's alignment: %v", ErrTool, o.Tool, err)
	}
	a, err := parse(data, string(o.Tool)+"'s alignment")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTool, err)
	}
	if err := a.check(seq, string(o.Tool)+"'s alignment"); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTool, err)
	}
	a.Names[0] = name
	return a, nil
}

// run runs the tool with args, its output to log; a failure is an error
// with the status and the last line the tool wrote.
func (s *Searcher) run(ctx context.Context, log io.Writer, args ...string) error {
	var tail tailBuffer
	cmd := exec.CommandContext(ctx, s.bin, args...)
	w := io.MultiWriter(log, &tail)
	cmd.Stdout, cmd.Stderr = w, w
	fmt.Fprintf(log, "$ %s %s\n", s.bin, strings.Join(args, " "))
	err := cmd.Run()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		msg := tail.last()
		if msg != "" {
			msg = ": " + msg
		}
		return fmt.Errorf("%w: %s %s: %v%s", ErrTool, s.opt.Tool, args[0], err, msg)
	}
	return nil
}

// database prepares the database once: jackhmmer cannot read gzip (it
// rewinds its database), so a gzip file is decompressed into the run's
// temporary directory; MMseqs2 gets its database and index built.
func (s *Searcher) database(ctx context.Context, log io.Writer) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != "" {
		return s.db, nil
	}
	var db string
	var err error
	switch s.opt.Tool {
	case Jackhmmer, Nhmmer:
		db, err = s.plainFASTA()
	case MMseqs:
		db, err = s.mmseqsIndex(ctx, log)
	case HHblits:
		db = s.opt.DB
	}
	if err != nil {
		return "", err
	}
	s.db = db
	return db, nil
}

func (s *Searcher) plainFASTA() (string, error) {
	f, err := os.Open(s.opt.DB)
	if err != nil {
		return "", fmt.Errorf("database: %w", err)
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if !bytes.HasPrefix(head[:n], []byte{0x1f, 0x8b}) && !bytes.HasPrefix(head[:n], []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		return s.opt.DB, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	r, err := fileio.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("database %s: %w", s.opt.DB, err)
	}
	defer r.Close()
	plain := filepath.Join(s.work, "database.fasta")
	w, err := os.Create(plain)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return "", fmt.Errorf("database %s: decompressing: %w", s.opt.DB, err)
	}
	return plain, w.Close()
}

// mmseqsIndex returns MMseqs2's target database, built (createdb,
// createindex) where it is not yet: in DBIndex, or DB.mmseqs beside the
// FASTA. It is built in a temporary directory and renamed into place, so
// that runs sharing it never see a part of it.
func (s *Searcher) mmseqsIndex(ctx context.Context, log io.Writer) (string, error) {
	dir := s.opt.DBIndex
	if dir == "" {
		dir = s.opt.DB + ".mmseqs"
	}
	db := filepath.Join(dir, "db")
	if _, err := os.Stat(db + ".dbtype"); err == nil {
		fmt.Fprintf(log, "# MMseqs2 database and index: %s\n", dir)
		return db, nil
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("MMseqs2 index: %w (give --db-index DIR, a directory you can write)", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return "", fmt.Errorf("MMseqs2 index beside %s: %w (give --db-index DIR, a directory you can write)", s.opt.DB, err)
	}
	defer os.RemoveAll(tmp)
	tdb := filepath.Join(tmp, "db")
	fmt.Fprintf(log, "# building the MMseqs2 database and index of %s in %s\n", s.opt.DB, dir)
	if err := s.run(ctx, log, "createdb", s.opt.DB, tdb); err != nil {
		return "", err
	}
	args := []string{"createindex", tdb, filepath.Join(tmp, "tmp")}
	if s.opt.Threads > 0 {
		args = append(args, "--threads", strconv.Itoa(s.opt.Threads))
	}
	if err := s.run(ctx, log, args...); err != nil {
		return "", err
	}
	os.RemoveAll(filepath.Join(tmp, "tmp"))
	// Renamed into place; where that is refused, another run may have
	// finished first, or dir is an empty directory the user made.
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(db + ".dbtype"); serr == nil {
			return db, nil // another run built it
		}
		if entries, rerr := os.ReadDir(dir); rerr == nil && len(entries) == 0 {
			os.Remove(dir)
			if err = os.Rename(tmp, dir); err == nil {
				return db, nil
			}
		}
		return "", fmt.Errorf("MMseqs2 index: %w", err)
	}
	return db, nil
}

// tailBuffer keeps the last bytes written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 8192 {
		t.b = append(t.b[:0], t.b[len(t.b)-4096:]...)
	}
	return len(p), nil
}

// last is the last line that is not blank, at most 300 bytes.
func (t *tailBuffer) last() string {
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 300 {
		l = l[:300] + "..."
	}
	return l
}
