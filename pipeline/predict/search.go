package predict

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/internal/outset"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/search"
)

// MinNeffL is the least Neff/L (effective sequences at 80% identity over
// the query's length) at which the search stage (Config.Search) predicts
// a chain from its alignment; below it the chain goes to the
// single-sequence models, with a note (Search.Strict: it fails). Measured
// on the 21 validation families of experiments/msa-net/split, their
// alignments subsampled to Neff/L 0.01-3 (experiments/msa-depth): the
// lowest Neff/L measured where the shipped MSA network is not below the
// single-sequence default by the paired interval, long-range top-L/5
// +0.106 [+0.048, +0.162] at 0.1, and below it at 0.03 (-0.020).
const MinNeffL = 0.1

// Search is the search stage of a run (Config.Search): every target that
// is not an alignment file (a sequence, a PDB ID, a structure) gets an
// alignment, reused from Config.Out where one is there (NAME.a3m, or
// features.FindMSA by its name or ID), else built by Searcher (package
// search) and written there, and is predicted from it as an alignment
// file is (Config.AlignmentModels, or models trained on alignments).
type Search struct {
	Searcher *search.Searcher
	// Config: Out is the alignments' directory (created where absent);
	// the manifest (search.ManifestName.tsv, a shard's of its own) is
	// written there.
	Config search.Config
	// MinNeffL: an alignment below it (Neff/L) is not used; the chain is
	// predicted by the single-sequence models with a note. 0 uses every
	// alignment.
	MinNeffL float64
	// Strict makes an alignment below MinNeffL a failure of its chain.
	Strict bool
	// OnStart and OnDone (may be nil) are called before the searches,
	// with their number, and after each, as search.Run calls its onDone.
	OnStart func(searches int)
	OnDone  func(search.Result)
}

// NewSearch returns the search stage of cfg (for Config.Search) with the
// searcher s: the alignments go to cfg.MSADir where given, else to
// OUT/msa, which cfg.MSADir then no longer names for the models (the
// stage gives every chain its alignment: it is cleared); every hit is
// kept (Filter MaxIdentity 1), cfg.Workers searches at once. An
// alignment below MinNeffL is not used (none is too shallow under
// MethodPLM, which has no single-sequence model to fall back to), and
// under strict fails its chain.
func NewSearch(cfg *Config, s *search.Searcher, strict bool) *Search {
	dir := cfg.MSADir
	if dir == "" {
		dir = filepath.Join(cfg.Out, "msa")
	}
	cfg.MSADir = ""
	minNeffL := MinNeffL // the msa network's, measured
	if cfg.Method == MethodPLM {
		minNeffL = 0
	}
	return &Search{
		Searcher: s,
		Config:   search.Config{Out: dir, Workers: cfg.Workers, Filter: search.Filter{MaxIdentity: 1}},
		MinNeffL: minNeffL,
		Strict:   strict,
	}
}

// SearchJobs resolves a search run's inputs into queries (as Run resolves
// them: PDB IDs in the mirror pdbDir, structure and FASTA files, an
// alignment file's query; an empty file fails) and names their outputs
// as Run names its own: the ID made safe (outset.SafeName) and unique in the run
// ignoring case, "_2", "_3" for later ones, the manifest's name
// (search.ManifestName) taken; a query written under another name than
// its ID is said on errw. An input that resolves to nothing is one
// failed job.
func SearchJobs(inputs []string, pdbDir string, errw io.Writer) []search.Job {
	var jobs []search.Job
	for _, a := range inputs {
		if empty, err := emptyFile(a); err == nil && empty {
			jobs = append(jobs, search.Job{ID: a, Arg: a, Err: errors.New("empty input: no sequence")})
			continue
		}
		ts, err := Resolve(a, pdbDir)
		if err != nil {
			jobs = append(jobs, search.Job{ID: a, Arg: a, Err: err})
			continue
		}
		for _, t := range ts {
			jobs = append(jobs, search.Job{ID: t.ID, Arg: a, Seq: t.Seq, Err: t.Err})
		}
	}
	taken := map[string]bool{search.ManifestName: true}
	for i := range jobs {
		base := outset.SafeName(jobs[i].ID)
		name := base
		for k := 2; taken[strings.ToLower(name)]; k++ {
			name = fmt.Sprintf("%s_%d", base, k)
		}
		if name != jobs[i].ID && jobs[i].Err == nil {
			fmt.Fprintf(errw, "%s: written as %s.*\n", jobs[i].ID, name)
		}
		taken[strings.ToLower(name)] = true
		jobs[i].Name = name
	}
	return jobs
}

// Source is where a chain's alignment came from (the search stage).
type Source struct {
	File  string  // the alignment
	Depth int     // rows, the query's included
	NeffL float64 // Neff at 80% identity over L
	// Searched: built by this run (else found in the directory).
	Searched bool
	// Shallow: below Search.MinNeffL, so not used.
	Shallow bool
}

// String describes the alignment for the summary: "FILE, depth N, Neff/L X".
func (s *Source) String() string {
	return fmt.Sprintf("%s, depth %d, Neff/L %.2f", s.File, s.Depth, s.NeffL)
}

// ErrShallow marks an alignment below Search.MinNeffL under Search.Strict.
var ErrShallow = errors.New("alignment too shallow for the msa network")

// runSearch runs the search stage for targets (the shard's): it sets the
// MSA of each target whose alignment is used, the Err of each whose
// alignment could not be had (or, under Strict, is too shallow), and
// returns each target's Source (nil for alignment files, failed inputs
// and targets whose search failed) and the notes for its outcome.
func runSearch(ctx context.Context, st *Search, threads, shard, shards int, targets []Target) ([]*Source, [][]string, error) {
	cfg := st.Config
	if cfg.Format == "" {
		cfg.Format = "a3m"
	}
	if cfg.Threads == 0 {
		cfg.Threads = threads
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, nil, fmt.Errorf("alignment directory: %w", err)
	}
	sources := make([]*Source, len(targets))
	notes := make([][]string, len(targets))
	found := make([]string, len(targets))
	var jobs []search.Job
	var index []int // the target of each job
	for i, t := range targets {
		if t.Err != nil || t.MSA != nil {
			continue
		}
		if p := findAlignment(cfg, t); p != "" {
			found[i] = p
			continue
		}
		jobs = append(jobs, search.Job{Name: t.Name, ID: t.ID, Arg: t.Arg, Seq: t.Seq})
		index = append(index, i)
	}
	if st.OnStart != nil {
		st.OnStart(len(jobs))
	}
	results := search.Run(ctx, st.Searcher, cfg, jobs, st.OnDone)
	if len(results) > 0 {
		manifest := search.ManifestFile(cfg.Out, shard, shards)
		if err := search.WriteManifest(manifest, st.Searcher, cfg, search.Finished(results)); err != nil {
			return nil, nil, fmt.Errorf("alignment manifest: %w", err)
		}
	}
	for k, r := range results {
		i := index[k]
		t := &targets[i]
		if r.Status == search.StatusFailed {
			t.Err = fmt.Errorf("%s: alignment search: %w", t.ID, r.Err)
			continue
		}
		found[i] = r.File
		if r.Status == search.StatusOK {
			sources[i] = &Source{File: r.File, Depth: r.Depth, NeffL: r.NeffL, Searched: true}
		}
	}
	for i := range targets {
		t := &targets[i]
		if found[i] == "" || t.Err != nil {
			continue
		}
		a, err := msa.ReadFile(found[i])
		if err != nil {
			t.Err = fmt.Errorf("%w: %s: %w", ErrInput, t.ID, err)
			continue
		}
		a = a.QueryColumns()
		if a.Query() != t.Seq {
			t.Err = fmt.Errorf("%w: %s: the query of %s (%d residues) is not the chain's sequence (%d residues): remove the file to search again", ErrInput, t.ID, found[i], a.L(), len(t.Seq))
			continue
		}
		src := sources[i]
		if src == nil {
			src = &Source{File: found[i], Depth: a.N(), NeffL: a.Neff(cfg.Threads) / float64(a.L())}
			sources[i] = src
		}
		how := "reused"
		if src.Searched {
			how = "built by " + string(st.Searcher.Tool())
		}
		if src.NeffL < st.MinNeffL {
			src.Shallow = true
			if st.Strict {
				t.Err = fmt.Errorf("%w: %s: %s (%s): Neff/L below %g, where the msa network was measured no better than the single-sequence model (experiments/msa-depth); without --strict it is predicted by the single-sequence model", ErrShallow, t.ID, src, how, st.MinNeffL)
				continue
			}
			notes[i] = append(notes[i], fmt.Sprintf("alignment %s (%s) is too shallow for the msa network (Neff/L below %g, experiments/msa-depth): predicted by the single-sequence model", src, how, st.MinNeffL))
			continue
		}
		t.MSA = a
		notes[i] = append(notes[i], fmt.Sprintf("alignment %s (%s)", src, how))
	}
	return sources, notes, nil
}

// findAlignment is the alignment of t already in cfg.Out: the search's
// own file (NAME.FORMAT), else one features.FindMSA finds by the
// target's output name or its ID.
func findAlignment(cfg search.Config, t Target) string {
	if p := cfg.Path(t.Name); regular(p) {
		return p
	}
	if p := features.FindMSA(cfg.Out, t.Name); p != "" {
		return p
	}
	return features.FindMSA(cfg.Out, t.ID)
}

func regular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
