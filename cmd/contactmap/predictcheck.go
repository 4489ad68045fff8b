package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/pipeline/predict"
)

// emptyFile reports whether path is a file holding nothing but white space
// (after decompression); false for what is not a file (a PDB ID).
func emptyFile(path string) (bool, error) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false, err
	}
	f, err := fileio.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		c, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false, nil
		}
	}
}

// nucleotideFraction is the fraction of seq's letters that are A, C, G,
// T, U or N (either case): over 0.9, the record is DNA or RNA, not a
// protein.
func nucleotideFraction(seq string) float64 {
	if seq == "" {
		return 0
	}
	n := 0
	for i := 0; i < len(seq); i++ {
		switch seq[i] | ('a' - 'A') {
		case 'a', 'c', 'g', 't', 'u', 'n':
			n++
		}
	}
	return float64(n) / float64(len(seq))
}

// chainCheck is predict's check of each chain before it is predicted
// (predict.Config.Check): a record that looks like DNA or RNA gets a
// warning (skipped under strict), and a chain whose outputs are already in
// the output directory is skipped unless force. A skipped chain is listed
// with the failures; the others are predicted.
func chainCheck(dir string, formats []string, force, strict bool) func(*predict.Target) error {
	return func(t *predict.Target) error {
		if f := nucleotideFraction(t.Seq); f > 0.9 {
			msg := fmt.Sprintf("%.0f%% of its letters are A, C, G, T, U or N: it looks like DNA or RNA, and a protein contact map of it means nothing (RNA: contactmap rna predict)", 100*f)
			if strict {
				return skipError{errors.New(msg + "; refused under --strict")}
			}
			t.Warnings = append(t.Warnings, msg)
		}
		if err := checkOutputs(dir, t.Name, formats, force); err != nil {
			return skipError{err}
		}
		return nil
	}
}

// renamed shows an error with a name replaced (a temporary file's path by
// "standard input").
type renamed struct {
	err      error
	old, new string
}

func (r renamed) Error() string { return strings.ReplaceAll(r.err.Error(), r.old, r.new) }
func (r renamed) Unwrap() error { return r.err }
