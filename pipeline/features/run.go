package features

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/potts"
	"github.com/contactmap/contactmap/pipeline/search"
	"github.com/contactmap/contactmap/pipeline/sets"
	"github.com/contactmap/contactmap/pisces"
)

// Config configures a features run.
type Config struct {
	List   string // PISCES list
	Chains string // or a chain-set file (package sets): its chains, splits and structure files
	PDBDir string // local PDB mirror
	SS     string // secondary-structure predictions (file or directory); "" for EstimateSS
	MSADir string // alignments <ID>.{a3m,aln,fasta}; "" for none. When set, chains without one are skipped.
	// Plm: with MSADir, the co-evolution channel from plmDCA (Options.Plm),
	// its fit on PlmThreads goroutines (default 1: Workers chains run at
	// once), stopped at PlmEpsilon's relative decrease (0: potts'
	// default; TrainedPlmEpsilon for the shipped MSA network's
	// training features).
	Plm        bool
	PlmThreads int
	PlmEpsilon float64
	// Search, when set (MSADir too), builds the alignment of each chain
	// that has none in MSADir: its SEQRES sequence searched by the tool
	// (package search), filtered by SearchFilter, written to MSADir as
	// <ID>.a3m with the tool's output <ID>.log, and a row in MSADir's
	// manifest (search.ManifestFile, one per shard). A chain whose search
	// fails is skipped (ReasonSearch) and the others go on; an alignment
	// already in MSADir is used as it is.
	Search         *search.Searcher
	SearchFilter   search.Filter
	Out            string // output directory
	MinLen, MaxLen int    // PISCES length filter
	Shard, Shards  int    // process list entries with index % Shards == Shard
	Workers        int
	Labels         pdb.ContactDef // zero: pdb.DefaultContactDef
	Seed           uint64         // split seed
	// Force lets the run replace a directory's features made with other
	// settings (another split, labels, chain list or mode); without it
	// such a run is refused (ErrChangedDirectory) before any work, and a
	// run with the same settings resumes the directory.
	Force bool

	splits, files map[string]string // of a chain-set file, by chain ID

	OnStart func(total int) // called once with the number of chains of this shard
	OnChain func(id string) // called after each chain
}

// ManifestEntry is one row of manifest.tsv.
type ManifestEntry struct {
	ID, PDB, Chain string
	Length         int
	Resolved       int // SEQRES positions with the atom the contact definition needs (C-alpha; C-beta, real or virtual)
	Split          string
	Mode           Mode
	SHA256, File   string
}

// Skip is one chain that could not be used.
type Skip struct{ ID, Reason, Detail string }

// Skip reasons.
const (
	ReasonMissingFile  = "missing file"
	ReasonMissingChain = "missing chain"
	ReasonBadRecord    = "bad record"
	ReasonNotProtein   = "not a protein chain"
	ReasonAlignment    = "SEQRES does not match coordinates"
	ReasonFewResolved  = "too few resolved residues"
	ReasonNoSS         = "no secondary-structure prediction"
	ReasonSSMismatch   = "secondary structure does not fit the sequence"
	ReasonNoMSA        = "no MSA"
	ReasonBadMSA       = "unusable MSA"
	ReasonSearch       = "search failed"
	ReasonFeatures     = "feature computation failed"
)

// Warning is something a user should know about a chain whose features
// were written (non-standard residues, say).
type Warning struct{ ID, Text string }

// Report is the outcome of a run.
type Report struct {
	Entries  []ManifestEntry
	Skips    []Skip
	Warnings []Warning
	Written  int // feature files written
	Reused   int // valid files already present
	// Searches are the chains' searches this run ran (Config.Search), in
	// chain order; a chain whose alignment was in MSADir has none.
	Searches []search.Result
}

// MinResolvedFraction and MinResolved: a chain needs C-alpha coordinates
// for at least half its SEQRES positions and at least 20 residues.
const (
	MinResolvedFraction = 0.5
	MinResolved         = 20
)

// FileName is the feature file name of a chain ID.
func FileName(id string) string { return id + ".feat.zst" }

// ShardSuffix names per-shard manifests: "" when not sharded.
func (c Config) ShardSuffix() string {
	if c.Shards <= 1 {
		return ""
	}
	return fmt.Sprintf(".shard-%d-of-%d", c.Shard, c.Shards)
}

// Run computes the feature files of the list's chains in cfg.Out, reusing
// valid files already there, and writes the manifest and skip report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Shards < 1 {
		cfg.Shards = 1
	}
	if cfg.Shard < 0 || cfg.Shard >= cfg.Shards {
		return nil, fmt.Errorf("features: shard %d outside 0..%d", cfg.Shard, cfg.Shards-1)
	}
	if cfg.Labels == (pdb.ContactDef{}) {
		cfg.Labels = pdb.DefaultContactDef
	}
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	list, err := readList(&cfg)
	if err != nil {
		return nil, err
	}
	listName := cfg.List + cfg.Chains
	if len(list) == 0 {
		return nil, fmt.Errorf("features: %s lists no chains", listName)
	}
	all := len(list)
	list = pisces.Filter{MinLength: cfg.MinLen, MaxLength: cfg.MaxLen}.Apply(list)
	if len(list) == 0 {
		return nil, fmt.Errorf("features: %w: none of the %d chains of %s has a length in %d-%d", ErrNoChainInRange, all, listName, cfg.MinLen, cfg.MaxLen)
	}
	var mine []pisces.Entry
	for i, e := range list {
		if i%cfg.Shards == cfg.Shard {
			mine = append(mine, e)
		}
	}
	var ss *SSSource
	if cfg.SS != "" {
		if ss, err = OpenSSSource(cfg.SS); err != nil {
			return nil, fmt.Errorf("features: secondary structure: %w", err)
		}
	}
	if err := fileio.CheckWritable(cfg.Out); err != nil {
		return nil, fmt.Errorf("features: %w", err)
	}
	if err := checkExisting(&cfg, mine); err != nil {
		return nil, err
	}
	if cfg.Search != nil {
		if cfg.MSADir == "" {
			return nil, errors.New("features: a search needs an alignment directory (MSADir) to write to")
		}
		if err := os.MkdirAll(cfg.MSADir, 0o755); err != nil {
			return nil, fmt.Errorf("features: %w", err)
		}
	}
	// Only this shard writes these chains' files and its manifests, so the
	// temporary files of a killed earlier run of it can go.
	suffix := cfg.ShardSuffix()
	own := []string{"manifest" + suffix + ".tsv", "skipped" + suffix + ".tsv"}
	for _, e := range mine {
		own = append(own, FileName(chainID(e)))
	}
	if err := fileio.RemoveStaleTemps(cfg.Out, own...); err != nil {
		return nil, fmt.Errorf("features: %w", err)
	}
	if cfg.OnStart != nil {
		cfg.OnStart(len(mine))
	}
	type result struct {
		entry    *ManifestEntry
		skip     *Skip
		warning  string
		reused   bool
		searched *search.Result
	}
	results := make([]result, len(mine))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mirror := pdb.Mirror{Dir: cfg.PDBDir}
			for i := range jobs {
				o := processChain(ctx, cfg, mirror, ss, mine[i])
				results[i] = result{o.entry, o.skip, o.warning, o.reused, o.searched}
				if o.fatal != nil {
					cancel(o.fatal) // an output error stops the run
					continue
				}
				if cfg.OnChain != nil {
					mu.Lock()
					cfg.OnChain(chainID(mine[i]))
					mu.Unlock()
				}
			}
		}()
	}
	for i := range mine {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	var searches []search.Result
	for _, r := range results {
		if r.searched != nil {
			searches = append(searches, *r.searched)
		}
	}
	searches = search.Finished(searches) // an interrupted search gets no row
	if len(searches) > 0 {
		// Written before an interrupted run returns too: the alignments
		// it built are in MSADir and a rerun uses them.
		mf := search.ManifestFile(cfg.MSADir, cfg.Shard, cfg.Shards)
		if err := search.WriteManifest(mf, cfg.Search, cfg.searchConfig(), searches); err != nil && context.Cause(ctx) == nil {
			return nil, fmt.Errorf("features: search manifest: %w", err)
		}
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	rep := &Report{Searches: searches}
	for k, r := range results {
		switch {
		case r.skip != nil:
			rep.Skips = append(rep.Skips, *r.skip)
		case r.entry != nil:
			rep.Entries = append(rep.Entries, *r.entry)
			if r.reused {
				rep.Reused++
			} else {
				rep.Written++
			}
			if r.warning != "" {
				rep.Warnings = append(rep.Warnings, Warning{ID: chainID(mine[k]), Text: r.warning})
			}
		}
	}
	sortReport(rep)
	if err := WriteManifest(filepath.Join(cfg.Out, "manifest"+suffix+".tsv"), rep.Entries); err != nil {
		return nil, err
	}
	if err := WriteSkips(filepath.Join(cfg.Out, "skipped"+suffix+".tsv"), rep.Skips); err != nil {
		return nil, err
	}
	return rep, nil
}

// searchConfig is the search run of a chain: one query into MSADir, as
// A3M, filtered by SearchFilter (the features' workers search at once).
func (cfg Config) searchConfig() search.Config {
	return search.Config{Out: cfg.MSADir, Workers: 1, Filter: cfg.SearchFilter}
}

func sortReport(rep *Report) {
	sort.Slice(rep.Entries, func(a, b int) bool { return rep.Entries[a].ID < rep.Entries[b].ID })
	sort.Slice(rep.Skips, func(a, b int) bool { return rep.Skips[a].ID < rep.Skips[b].ID })
}

func chainID(e pisces.Entry) string { return e.PDB + "_" + e.Chain }

// readList reads the chains of cfg.List (a PISCES list) or cfg.Chains (a
// chain-set file, whose splits and structure files it records in cfg).
func readList(cfg *Config) ([]pisces.Entry, error) {
	switch {
	case (cfg.List == "") == (cfg.Chains == ""):
		return nil, fmt.Errorf("features: give a PISCES list or a chain-set file, not both or neither")
	case cfg.List != "":
		return pisces.ReadFile(cfg.List)
	}
	es, err := sets.ReadFile(cfg.Chains)
	if err != nil {
		return nil, err
	}
	cfg.splits, cfg.files = map[string]string{}, map[string]string{}
	out := make([]pisces.Entry, len(es))
	for i, e := range es {
		out[i] = pisces.Entry{ID: e.ID, PDB: e.PDB, Chain: e.Chain, Length: e.Length}
		cfg.splits[e.ID], cfg.files[e.ID] = e.Split, e.File
	}
	return out, nil
}

// splitOf is a chain's split: the chain-set file's, or SplitOf's.
func (cfg *Config) splitOf(e pisces.Entry) string {
	if s, ok := cfg.splits[chainID(e)]; ok {
		return s
	}
	return SplitOf(e.PDB, cfg.Seed)
}

// chainOutcome is what processChain gives for one chain: an entry (with
// perhaps a warning), a skip, or a fatal error (writing an output failed).
type chainOutcome struct {
	entry   *ManifestEntry
	skip    *Skip
	warning string
	reused  bool
	fatal   error
	// searched: the chain's search, where this run ran one.
	searched *search.Result
}

func processChain(ctx context.Context, cfg Config, mirror pdb.Mirror, ss *SSSource, e pisces.Entry) (out chainOutcome) {
	id := chainID(e)
	var searched *search.Result // every outcome after a search carries it
	defer func() { out.searched = searched }()
	skip := func(reason string, err error) chainOutcome {
		d := ""
		if err != nil {
			d = err.Error()
		}
		return chainOutcome{skip: &Skip{ID: id, Reason: reason, Detail: d}}
	}
	wantMSA, wantSS := cfg.MSADir != "", ss != nil
	path := filepath.Join(cfg.Out, FileName(id))
	if c, err := ReadFile(path); err == nil && c.ID == id && c.Labels != nil && c.HasMSA == wantMSA && c.HasSS == wantSS && c.HasPlm == (wantMSA && cfg.Plm) &&
		c.Labels.Def.Atoms == cfg.Labels.Atoms && float32(c.Labels.Def.Cutoff) == float32(cfg.Labels.Cutoff) {
		if me, err := manifestEntry(cfg, e, c, path); err == nil {
			return chainOutcome{entry: me, reused: true, warning: NonStandard(c.Seq)}
		}
	}
	var s *pdb.Structure
	var err error
	if f := cfg.files[id]; f != "" {
		s, err = pdb.ReadFile(f)
	} else {
		s, _, err = mirror.Read(e.PDB)
	}
	if err != nil {
		if errors.Is(err, pdb.ErrNotFound) {
			return skip(ReasonMissingFile, err)
		}
		return skip(ReasonBadRecord, err)
	}
	ch := s.FindChain(e.Chain)
	if ch == nil {
		return skip(ReasonMissingChain, fmt.Errorf("%s has chains %s", e.PDB, chainList(s)))
	}
	if !ch.IsProtein() {
		return skip(ReasonNotProtein, nil)
	}
	res, err := ch.Align()
	if err != nil {
		return skip(ReasonAlignment, err)
	}
	seq := ch.Sequence()
	resolved := 0
	for _, r := range res {
		if r != nil && r.Has("CA") {
			resolved++
		}
	}
	if float64(resolved) < MinResolvedFraction*float64(len(seq)) || resolved < MinResolved {
		return skip(ReasonFewResolved, fmt.Errorf("%d of %d residues have C-alpha coordinates", resolved, len(seq)))
	}
	var pred SS
	if ss != nil {
		p, ok, err := ss.Lookup(id)
		switch {
		case err != nil:
			return skip(ReasonSSMismatch, err)
		case !ok:
			return skip(ReasonNoSS, nil)
		case len(p) != len(seq):
			return skip(ReasonSSMismatch, fmt.Errorf("prediction has %d residues, SEQRES %d", len(p), len(seq)))
		}
		pred = p
	}
	var aln *msa.Alignment
	if wantMSA {
		p := FindMSA(cfg.MSADir, id)
		if p == "" && cfg.Search != nil {
			r := search.Run(ctx, cfg.Search, cfg.searchConfig(), []search.Job{{Name: id, ID: id, Arg: e.PDB, Seq: seq}}, nil)[0]
			searched = &r
			switch {
			case ctx.Err() != nil:
				return chainOutcome{fatal: context.Cause(ctx)}
			case r.Status != search.StatusOK && r.Status != search.StatusSkipped:
				return skip(ReasonSearch, r.Err)
			}
			p = r.File
		}
		if p == "" {
			return skip(ReasonNoMSA, nil)
		}
		if aln, err = ReadAlignment(p); err != nil {
			return skip(ReasonBadMSA, err)
		}
	}
	c, err := ComputeWith(ctx, id, seq, pred, aln, Options{Plm: cfg.Plm, Potts: potts.Options{Threads: max(cfg.PlmThreads, 1), Epsilon: cfg.PlmEpsilon}})
	if err != nil {
		if ctx.Err() != nil { // the plmDCA fit stopped: the run's end, not the chain's fault
			return chainOutcome{fatal: context.Cause(ctx)}
		}
		if errors.Is(err, ErrMSA) {
			return skip(ReasonBadMSA, err)
		}
		return skip(ReasonFeatures, err)
	}
	if err := AddLabels(c, res, cfg.Labels); err != nil {
		return skip(ReasonFeatures, err)
	}
	if err := WriteFile(path, c); err != nil {
		return chainOutcome{fatal: fmt.Errorf("features: %s: writing %s: %w", id, path, err)}
	}
	me, err := manifestEntry(cfg, e, c, path)
	if err != nil {
		return chainOutcome{fatal: fmt.Errorf("features: %s: reading back %s: %w", id, path, err)}
	}
	return chainOutcome{entry: me, warning: NonStandard(seq)}
}

func chainList(s *pdb.Structure) string {
	var ids []string
	for _, c := range s.Chains {
		id := c.ID
		if id == "" {
			id = `"" (blank)`
		}
		ids = append(ids, id)
	}
	return strings.Join(ids, ",")
}

func manifestEntry(cfg Config, e pisces.Entry, c *Chain, path string) (*ManifestEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	resolved := 0
	l := c.L()
	for i := 0; i < l; i++ {
		// position i has coordinates when it has a known pair
		for j := 0; j < l; j++ {
			if _, known := c.Labels.At(i, j); i != j && known {
				resolved++
				break
			}
		}
	}
	return &ManifestEntry{ID: c.ID, PDB: e.PDB, Chain: e.Chain, Length: l, Resolved: resolved,
		Split: cfg.splitOf(e), Mode: c.Mode(), SHA256: hex.EncodeToString(h.Sum(nil)), File: FileName(c.ID)}, nil
}

// ErrNoChainInRange: no chain of the list has a length in Config's
// MinLen-MaxLen.
var ErrNoChainInRange = errors.New("no chain in the length range")

var manifestHeader = []string{"id", "pdb", "chain", "length", "resolved", "split", "mode", "sha256", "file"}

// WriteManifest writes entries as TSV (with a header) atomically.
func WriteManifest(path string, entries []ManifestEntry) error {
	return fileio.WriteAtomic(path, func(w io.Writer) error { return writeManifest(w, entries) })
}

func writeManifest(w io.Writer, entries []ManifestEntry) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, strings.Join(manifestHeader, "\t"))
	for _, e := range entries {
		fmt.Fprintf(bw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", e.ID, e.PDB, e.Chain, e.Length, e.Resolved, e.Split, e.Mode, e.SHA256, e.File)
	}
	return bw.Flush()
}

// ReadManifest reads a manifest written by WriteManifest. Errors name the
// file and line: a missing header, a wrong field count, a length below 1,
// a resolved count outside 0..length, an empty id, or a feature file name
// that is not a plain name in the directory.
func ReadManifest(path string) ([]ManifestEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readManifest(f, path)
}

func readManifest(rd io.Reader, path string) ([]ManifestEntry, error) {
	var out []ManifestEntry
	sc := bufio.NewScanner(rd)
	line := 0
	for sc.Scan() {
		line++
		fs := strings.Split(sc.Text(), "\t")
		if line == 1 {
			if strings.Join(fs, "\t") != strings.Join(manifestHeader, "\t") {
				return nil, fmt.Errorf("%s line 1: not a manifest header", path)
			}
			continue
		}
		if len(fs) != len(manifestHeader) {
			return nil, fmt.Errorf("%s line %d: %d fields, want %d", path, line, len(fs), len(manifestHeader))
		}
		n, err1 := strconv.Atoi(fs[3])
		r, err2 := strconv.Atoi(fs[4])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s line %d: bad length or resolved count", path, line)
		}
		switch file := fs[8]; {
		case fs[0] == "":
			return nil, fmt.Errorf("%s line %d: empty id", path, line)
		case n < 1 || r < 0 || r > n:
			return nil, fmt.Errorf("%s line %d: length %d, resolved %d (want length >= 1, resolved 0..length)", path, line, n, r)
		case file == "" || file == "." || file == ".." || strings.ContainsAny(file, "/\\\x00"):
			return nil, fmt.Errorf("%s line %d: feature file %q is not a file name in the directory", path, line, file)
		}
		mode, err := ParseMode(fs[6])
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		out = append(out, ManifestEntry{ID: fs[0], PDB: fs[1], Chain: fs[2], Length: n, Resolved: r, Split: fs[5], Mode: mode, SHA256: fs[7], File: fs[8]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s line %d: %w", path, line+1, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty, not a manifest (no header)", path)
	}
	return out, nil
}

// WriteSkips writes the skip report as TSV atomically.
func WriteSkips(path string, skips []Skip) error {
	return fileio.WriteAtomic(path, func(w io.Writer) error {
		fmt.Fprintln(w, "id\treason\tdetail")
		for _, s := range skips {
			fmt.Fprintf(w, "%s\t%s\t%s\n", s.ID, s.Reason, strings.ReplaceAll(s.Detail, "\t", " "))
		}
		return nil
	})
}

func readSkips(path string) ([]Skip, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Skip
	for k, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if k == 0 || line == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s line %d: want 3 fields", path, k+1)
		}
		out = append(out, Skip{ID: f[0], Reason: f[1], Detail: f[2]})
	}
	return out, nil
}

// MergeShards combines the shard manifests and skip reports of dir
// (manifest.shard-*-of-N.tsv) into manifest.tsv and skipped.tsv, sorted by
// chain ID as a single run writes them. All N shards must be present.
func MergeShards(dir string) (*Report, error) {
	files, err := filepath.Glob(filepath.Join(dir, "manifest.shard-*-of-*.tsv"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("features: no shard manifests in %s", dir)
	}
	var n int
	seen := map[int]bool{}
	for _, f := range files {
		var i, m int
		if _, err := fmt.Sscanf(filepath.Base(f), "manifest.shard-%d-of-%d.tsv", &i, &m); err != nil {
			return nil, fmt.Errorf("features: %s: bad shard manifest name", f)
		}
		if n != 0 && m != n {
			return nil, fmt.Errorf("features: shard manifests of %d and %d shards in %s", n, m, dir)
		}
		n = m
		seen[i] = true
	}
	for i := 0; i < n; i++ {
		if !seen[i] {
			return nil, fmt.Errorf("features: shard %d of %d has no manifest in %s (not run or failed)", i, n, dir)
		}
	}
	rep := &Report{}
	for i := 0; i < n; i++ {
		suffix := fmt.Sprintf(".shard-%d-of-%d", i, n)
		es, err := ReadManifest(filepath.Join(dir, "manifest"+suffix+".tsv"))
		if err != nil {
			return nil, err
		}
		sk, err := readSkips(filepath.Join(dir, "skipped"+suffix+".tsv"))
		if err != nil {
			return nil, err
		}
		rep.Entries = append(rep.Entries, es...)
		rep.Skips = append(rep.Skips, sk...)
	}
	sortReport(rep)
	if err := WriteManifest(filepath.Join(dir, "manifest.tsv"), rep.Entries); err != nil {
		return nil, err
	}
	return rep, WriteSkips(filepath.Join(dir, "skipped.tsv"), rep.Skips)
}
