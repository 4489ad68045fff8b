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

// startsFASTA reports whether data is FASTA: its first line that is not
// blank or a ';' comment starts with '>' (as predict tells files apart).
func startsFASTA(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, ";") {
			continue
		}
		return strings.HasPrefix(t, ">")
	}
	return false
}

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

// outputNames are the targets' output base names as predict.Run gives
// them: SafeName of the ID, "_2", "_3", ... for later ones with a name
// taken (ignoring case).
func outputNames(ts []predict.Target) []string {
	taken := map[string]bool{}
	names := make([]string, len(ts))
	for i, t := range ts {
		base := predict.SafeName(t.ID)
		name := base
		for k := 2; taken[strings.ToLower(name)]; k++ {
			name = fmt.Sprintf("%s_%d", base, k)
		}
		taken[strings.ToLower(name)] = true
		names[i] = name
	}
	return names
}

// preflight checks this shard's targets before any prediction: a record
// that looks like DNA or RNA gets a warning (refused under strict), and
// outputs already in the output directory are refused unless force. A
// refusal stops the run before any work, listing every refused chain:
// predict.Run has no way to leave out one chain of an input.
func preflight(cfg predict.Config, args []string, force, strict bool) error {
	var all []predict.Target
	for _, a := range args {
		if ts, err := predict.Resolve(a, cfg.PDBDir); err == nil { // predict.Run reports the others
			all = append(all, ts...)
		}
	}
	names := outputNames(all)
	var refused []string
	for i, t := range all {
		if i%cfg.Shards != cfg.Shard {
			continue
		}
		if f := nucleotideFraction(t.Seq); f > 0.9 {
			msg := fmt.Sprintf("%s: %.0f%% of its letters are A, C, G, T, U or N: it looks like DNA or RNA, and a protein contact map of it means nothing (RNA: contactmap rna predict)", t.ID, 100*f)
			if strict {
				refused = append(refused, msg+"; refused under --strict")
			} else {
				fmt.Fprintf(stderr, "warning: %s\n", msg)
			}
		}
		if err := checkOutputs(cfg.Out, names[i], cfg.Formats, force); err != nil {
			refused = append(refused, fmt.Sprintf("%s: %v", t.ID, err))
		}
	}
	if len(refused) == 0 {
		return nil
	}
	fmt.Fprintf(stderr, "%d chain(s) refused; nothing was predicted:\n", len(refused))
	for _, r := range refused {
		fmt.Fprintf(stderr, "  %s\n", r)
	}
	return fmt.Errorf("%d chain(s) refused before any prediction (listed above)", len(refused))
}

// renamed shows an error with a name replaced (a temporary file's path by
// "standard input").
type renamed struct {
	err      error
	old, new string
}

func (r renamed) Error() string { return strings.ReplaceAll(r.err.Error(), r.old, r.new) }
func (r renamed) Unwrap() error { return r.err }
