package main

import (
	"context"
	"fmt"
	"io"

	"github.com/contactmap/contactmap/internal/usage"
	"github.com/contactmap/contactmap/pipeline/search"
	"github.com/contactmap/contactmap/rna/consensus"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// rnaHomologs wires rna predict's and rna eval's --db and --search-bin
// into find and from (nothing where db is ""): an nhmmer search of db
// (pipeline/search) for each molecule, its alignment's homologs kept as
// the trials kept them (consensus.FromAlignment); from names the tool
// and the database for the run's header. close removes the search's
// temporary files. The tool's output is kept only for an error (its
// last line).
func rnaHomologs(db, bin string, find *ssnet.HomologFinder, from *string) (close func() error, err error) {
	none := func() error { return nil }
	if db == "" {
		if bin != "" {
			return none, usage.Errorf("--search-bin without --db: nothing is searched")
		}
		return none, nil
	}
	s, err := search.New(search.Options{Tool: search.Nhmmer, Bin: bin, DB: db, Threads: 1})
	if err != nil {
		return none, fmt.Errorf("--db: %w", err)
	}
	*find = func(ctx context.Context, name, seq string) ([]consensus.Homolog, error) {
		a, err := s.Search(ctx, search.Query{Name: "query", Seq: seq}, io.Discard)
		if err != nil {
			return nil, err
		}
		return consensus.FromAlignment(a.Names, a.Rows)
	}
	*from = fmt.Sprintf("by %s (nhmmer, E-value %g) in %s", s.Version(), search.DefaultEValue, db)
	return s.Close, nil
}
