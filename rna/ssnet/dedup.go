package ssnet

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/rna"
)

// WriteDotBracketSet writes molecules to path as dot-bracket records
// (">name", the sequence, the structure: rna.DotBracket; ReadSet reads
// them back), gzip-compressed when path ends in .gz, atomically. A
// molecule whose structure dot-bracket cannot write fails it before any
// file is written, the error naming the molecule's file (from) and the
// molecule.
func WriteDotBracketSet(path, from string, mols []Molecule) error {
	var buf bytes.Buffer
	for _, m := range mols {
		db, err := rna.DotBracket(m.Structure)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", from, m.Name, err)
		}
		fmt.Fprintf(&buf, ">%s\n%s\n%s\n", m.Name, m.Seq, db)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fileio.WriteAtomic(path, func(w io.Writer) error {
		if strings.HasSuffix(path, ".gz") {
			zw := gzip.NewWriter(w)
			if _, err := zw.Write(buf.Bytes()); err != nil {
				return err
			}
			return zw.Close()
		}
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// Dedup is rna dedup: it drops from the molecules of setFile those at
// maxIdentity or more to a molecule of against (comma-separated files;
// FilterSimilar), writes the kept ones to out (WriteDotBracketSet) and
// writes to w the table of the dropped ones, each with its nearest
// molecule, and a line of what was kept.
func Dedup(w io.Writer, setFile, against, out string, maxIdentity float64) error {
	set, err := ReadSet(setFile)
	if err != nil {
		return err
	}
	ref, err := ReadSetList(against)
	if err != nil {
		return err
	}
	kept, dropped := FilterSimilar(set, ref, maxIdentity)
	if err := WriteDotBracketSet(out, setFile, kept); err != nil {
		return err
	}
	fmt.Fprintln(w, "| dropped | nearest | identity (over the shorter) |\n|---|---|---:|")
	for _, o := range dropped {
		fmt.Fprintf(w, "| %s | %s | %.3f |\n", o.Name, o.Nearest, o.Identity)
	}
	fmt.Fprintf(w, "%s: kept %d of %d molecules (%d at identity >= %.2f to %s) in %s\n", setFile, len(kept), len(set), len(dropped), maxIdentity, against, out)
	return nil
}
