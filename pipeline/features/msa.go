package features

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/contactmap/contactmap/pipeline/msa"
)

// ErrMSA marks an alignment the features cannot use: its query does not
// match the chain, or its co-evolution cannot be computed.
var ErrMSA = errors.New("bad multiple sequence alignment")

// ReadAlignment reads the alignment of a chain for its MSA channels with
// package msa's reader (format and compression by content; an alignment
// of the query alone accepted, msa.Options.Single) and keeps the columns
// of the query's residues (msa.Alignment.QueryColumns). Its errors are
// msa's.
func ReadAlignment(path string) (*msa.Alignment, error) {
	a, err := msa.ReadFileWith(path, msa.Options{Single: true})
	if err != nil {
		return nil, err
	}
	return a.QueryColumns(), nil
}

// FindMSA returns the alignment file for chain id in dir (<id>.a3m, .aln,
// .fasta, .fa, .afa, possibly .gz; a symbolic link counts when it
// resolves to a regular file), or "" if there is none.
func FindMSA(dir, id string) string {
	for _, ext := range []string{".a3m", ".aln", ".fasta", ".fa", ".afa"} {
		for _, z := range []string{"", ".gz"} {
			p := filepath.Join(dir, id+ext+z)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p
			}
		}
	}
	return ""
}
