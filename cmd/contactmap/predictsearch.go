package main

import (
	"flag"

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

// stage sets cfg.Search from the flags (predict.NewSearch): nothing
// without --db. close removes the searcher's files.
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
	st := predict.NewSearch(cfg, s, strict)
	var bar *progress.Bar
	done, calls, total := 0, 0, 0
	st.OnStart = func(n int) {
		if n > 0 {
			bar, total = progress.New(n, "search"), n
		}
	}
	st.OnDone = func(r search.Result) {
		calls++
		if r.Status == search.StatusOK {
			done++
		}
		setFinished("%d of %d alignments written to %s (a rerun reuses them)", done, total, st.Config.Out)
		if bar != nil {
			bar.Add(1)
			if calls == total {
				bar.Finish()
			}
		}
	}
	cfg.Search = st
	return close, nil
}
