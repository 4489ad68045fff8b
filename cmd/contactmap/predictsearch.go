package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/internal/progress"
	"github.com/contactmap/contactmap/pipeline/predict"
	"github.com/contactmap/contactmap/pipeline/search"
)

// searchFlags are predict's flags of the search stage (--db).
type searchFlags struct {
	DB, DBIndex, Tool, Bin string
}

func (sf *searchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&sf.DB, "db", "", "search this database for an alignment of each input that is not an alignment file (a FASTA file, plain or gzip, for jackhmmer and mmseqs; an HH-suite prefix for hhblits; as contactmap msa), kept in --msa-dir or OUT/msa and reused, and predict the chain from it with the msa network (docs/msa.md)")
	fs.StringVar(&sf.Tool, "search", string(search.DefaultTool), "with --db: the search tool, jackhmmer (Debian hmmer), mmseqs (mmseqs2) or hhblits (hhsuite)")
	fs.StringVar(&sf.Bin, "search-bin", "", "with --db: the search tool's program (default: its name on PATH)")
	fs.StringVar(&sf.DBIndex, "db-index", "", "with --db and --search mmseqs: directory of the database and index (default DB.mmseqs beside --db)")
}

// stage sets cfg.Search from the flags: nothing without --db. The
// alignments go to cfg.MSADir where given (which then no longer names
// the models' alignment directory: the stage gives every chain its
// alignment), else to OUT/msa. close removes the searcher's files.
func (sf *searchFlags) stage(cfg *predict.Config, strict bool) (close func(), err error) {
	close = func() {}
	if sf.DB == "" {
		for _, n := range []struct{ name, v, def string }{{"search", sf.Tool, string(search.DefaultTool)}, {"search-bin", sf.Bin, ""}, {"db-index", sf.DBIndex, ""}} {
			if n.v != n.def {
				return close, usageError("--%s is for the search stage: give --db too", n.name)
			}
		}
		return close, nil
	}
	tool, err := search.ParseTool(sf.Tool)
	if err != nil {
		return close, usageError("--search: %v", err)
	}
	s, err := search.New(search.Options{Tool: tool, Bin: sf.Bin, DB: sf.DB, DBIndex: sf.DBIndex})
	if err != nil {
		return close, err
	}
	close = func() { s.Close() }
	onForcedExit(close)
	dir := cfg.MSADir
	if dir == "" {
		dir = filepath.Join(cfg.Out, "msa")
	}
	cfg.MSADir = ""
	minNeffL := predict.MinNeffL // the msa network's, measured
	if cfg.Method == predict.MethodPLM {
		minNeffL = 0 // plmDCA has no single-sequence model to fall back to
	}
	var bar *progress.Bar
	done, calls, total := 0, 0, 0
	cfg.Search = &predict.Search{
		Searcher: s,
		Config:   search.Config{Out: dir, Workers: cfg.Workers, Filter: search.Filter{MaxIdentity: 1}},
		MinNeffL: minNeffL,
		Strict:   strict,
		OnStart: func(n int) {
			if n > 0 {
				bar, total = progress.New(n, "search"), n
			}
		},
		OnDone: func(r search.Result) {
			calls++
			if r.Status == search.StatusOK {
				done++
			}
			setFinished("%d of %d alignments written to %s (a rerun reuses them)", done, total, dir)
			if bar != nil {
				bar.Add(1)
				if calls == total {
					bar.Finish()
				}
			}
		},
	}
	return close, nil
}

// searchedMethod is the summary's method of a chain the search stage
// gave an alignment: the predictor, then the alignment ("network msa
// (OUT/msa/1ABC_A.a3m, depth 1883, Neff/L 4.20)"), or for one too
// shallow the single-sequence models and why.
func searchedMethod(cfg predict.Config, o predict.Outcome) string {
	src := o.Alignment
	o.Alignment = nil
	m := outcomeMethod(cfg, o)
	if src.Shallow {
		return fmt.Sprintf("%s (alignment too shallow: %s)", m, src)
	}
	return fmt.Sprintf("%s (%s)", m, src)
}

// singleSequenceNote is said once by a run without --db that predicted
// chains by the single-sequence default. The numbers are long-range
// top-L/5 (C-beta) on the 21 validation families of experiments/msa-net:
// the single-sequence default's from experiments/msa-depth, the msa
// network's on the families' alignments (the faster plmDCA fit predict
// runs) from docs/predict.md#alignments.
const singleSequenceNote = "note: sequences are predicted by the single-sequence model (long-range top-L/5 0.139 on the 21 validation families of experiments/msa-net, experiments/msa-depth); give --db SEQDB to build alignments and use the msa network (0.763 on those families' alignments), see docs/msa.md"

// noteSingleSequence writes singleSequenceNote to w when some chain of
// outs was predicted by the single-sequence default models.
func noteSingleSequence(w io.Writer, cfg predict.Config, outs []predict.Outcome) {
	single := "network " + strings.Join(cfg.Models, "+")
	for _, o := range outs {
		if o.Err == nil && o.ID != "" && outcomeMethod(cfg, o) == single {
			fmt.Fprintln(w, singleSequenceNote)
			return
		}
	}
}
