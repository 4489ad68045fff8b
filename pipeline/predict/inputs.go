package predict

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/runsummary"
)

// Bounds of standard input (ReadStdin): a list of inputs, and FASTA
// records.
const (
	StdinListBytes  = 64 << 20
	StdinFASTABytes = 1 << 30
)

// ReadInputList reads inputs one per line: the first field of each line,
// blank lines and # comments skipped.
func ReadInputList(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, strings.Fields(t)[0])
	}
	return out, sc.Err()
}

// ReadInputFile reads the inputs listed in the file path, one per line
// (ReadInputList), up to StdinListBytes: the inputs of --ids, which
// follow those of the command line. Its errors name --ids.
func ReadInputFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--ids: %w", err)
	}
	defer f.Close()
	data, err := fileio.ReadText(f, StdinListBytes, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("--ids %s: %w", path, err)
	}
	more, err := ReadInputList(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("--ids %s: %w", path, err)
	}
	return more, nil
}

// ParseFormats reads a comma-separated list of outputs (Config.Formats:
// rr, npy, tsv, png), ignoring case, spaces and empty items ("rr, NPY");
// a list that names none, or an unknown output, is an error naming
// --format.
func ParseFormats(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		switch f = strings.ToLower(strings.TrimSpace(f)); f {
		case "":
		case "rr", "npy", "tsv", "png":
			out = append(out, f)
		default:
			return nil, fmt.Errorf("--format: unknown output %q (rr, npy, tsv, png)", f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--format %q names no output", s)
	}
	return out, nil
}

// Stdin is what standard input gave a run's inputs (ReadStdin).
type Stdin struct {
	// File is the temporary file holding standard input's FASTA records,
	// "" where it held none.
	File   string
	remove func()
}

// Remove removes the temporary file, if any.
func (s *Stdin) Remove() {
	if s.remove != nil {
		s.remove()
	}
}

// ReadStdin replaces "-" among args by standard input (read once, "-"
// given twice counts once), read in a bounded way: FASTA records (its
// first line that is not blank or a ';' comment starts with '>',
// LooksLikeFASTA) are streamed to a temporary file, up to
// StdinFASTABytes, whose path takes the place of "-" (the readers then
// bound each record); anything else is a list of inputs one per line
// (ReadInputList), up to StdinListBytes. Binary data and empty input are
// refused. onTemp, when not nil, is given the temporary file's removal as
// soon as the file exists (a command's forced exit runs it).
func ReadStdin(args []string, stdin io.Reader, onTemp func(remove func())) ([]string, *Stdin, error) {
	s := &Stdin{}
	var out []string
	read := false
	for _, a := range args {
		if a != "-" {
			out = append(out, a)
			continue
		}
		if read {
			continue
		}
		read = true
		head := make([]byte, 64<<10)
		n, err := io.ReadFull(stdin, head)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, s, fmt.Errorf("standard input: %w", err)
		}
		head = head[:n]
		if fileio.IsBinary(head[:min(len(head), fileio.SniffSize)]) {
			return nil, s, fmt.Errorf("standard input: binary data, not FASTA records or a list of inputs")
		}
		rest := io.MultiReader(bytes.NewReader(head), stdin)
		if !LooksLikeFASTA(head) {
			data, err := fileio.ReadText(rest, StdinListBytes, 1<<20)
			if err != nil {
				return nil, s, fmt.Errorf("standard input: %w", err)
			}
			if len(bytes.TrimSpace(data)) == 0 {
				return nil, s, fmt.Errorf("standard input: empty input: give FASTA records, or inputs (PDB IDs, files) one per line")
			}
			more, err := ReadInputList(bytes.NewReader(data))
			if err != nil {
				return nil, s, fmt.Errorf("standard input: %w", err)
			}
			out = append(out, more...)
			continue
		}
		tmp, err := os.MkdirTemp("", "contactmap-stdin-")
		if err != nil {
			return nil, s, err
		}
		s.remove = func() { os.RemoveAll(tmp) }
		if onTemp != nil {
			onTemp(s.remove)
		}
		s.File = filepath.Join(tmp, "standard-input")
		f, err := os.OpenFile(s.File, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
		if err != nil {
			return nil, s, err
		}
		copied, err := io.Copy(f, io.LimitReader(rest, StdinFASTABytes+1))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, s, fmt.Errorf("standard input: %w", err)
		}
		if copied > StdinFASTABytes {
			return nil, s, fmt.Errorf("standard input: more than %d bytes of FASTA records (the bound of standard input; give a file instead)", int64(StdinFASTABytes))
		}
		out = append(out, s.File)
	}
	return out, s, nil
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

// DropEmpty takes the empty input files (white space only, after
// decompression) out of args: they fail here, with their name (the
// structure reader would say "no atoms"), each reported by the shard its
// index in args falls to. rest is the other inputs, for Run.
func DropEmpty(args []string, shard, shards int) (rest []string, failed []Outcome) {
	for i, a := range args {
		if empty, err := emptyFile(a); err == nil && empty {
			if i%max(shards, 1) == shard {
				failed = append(failed, Outcome{Arg: a, Err: errors.New("empty input: no structure or sequence")})
			}
			continue
		}
		rest = append(rest, a)
	}
	return rest, failed
}

// RunInputs is Run over a command's inputs, standard input already read
// (ReadStdin; stdinFile its temporary file, "" for none): the empty
// input files fail without a run (DropEmpty), before the outcomes of the
// others; standard input's file is named "standard input" (RenameInput);
// and once ctx is done the targets it stopped are left out (Finished):
// they are not failures.
func RunInputs(ctx context.Context, cfg Config, args []string, stdinFile string) ([]Outcome, error) {
	rest, outs := DropEmpty(args, cfg.Shard, cfg.Shards)
	if len(rest) > 0 {
		done, err := Run(ctx, cfg, rest)
		if err != nil {
			return nil, err
		}
		outs = append(outs, done...)
	}
	RenameInput(outs, stdinFile, "standard input")
	if ctx.Err() != nil {
		outs = Finished(outs)
	}
	return outs, nil
}

// RenameInput shows the input old (standard input's temporary file) as
// new ("standard input") in the outcomes: their Arg, and their errors'
// messages. An empty old renames nothing.
func RenameInput(outs []Outcome, old, new string) {
	for i := 0; old != "" && i < len(outs); i++ {
		if outs[i].Arg == old {
			outs[i].Arg = new
		}
		if outs[i].Err != nil {
			outs[i].Err = renamed{outs[i].Err, old, new}
		}
	}
}

// renamed shows an error with a name replaced.
type renamed struct {
	err      error
	old, new string
}

func (r renamed) Error() string { return strings.ReplaceAll(r.err.Error(), r.old, r.new) }
func (r renamed) Unwrap() error { return r.err }

// CheckChain is predict's check of each chain before it is predicted
// (Config.Check): a record that looks like DNA or RNA (over 90% A, C, G,
// T, U or N) gets a warning, or under strict is skipped, and a chain
// whose outputs (NAME.FORMAT for each of formats) are already in out is
// skipped unless force. Skipped chains fail with a runsummary.Skip; the
// others are predicted.
func CheckChain(out string, formats []string, force, strict bool) func(*Target) error {
	return func(t *Target) error {
		if f := nucleotideFraction(t.Seq); f > 0.9 {
			msg := fmt.Sprintf("%.0f%% of its letters are A, C, G, T, U or N: it looks like DNA or RNA, and a protein contact map of it means nothing (RNA: contactmap rna predict)", 100*f)
			if strict {
				return runsummary.Skip{Err: errors.New(msg + "; refused under --strict")}
			}
			t.Warnings = append(t.Warnings, msg)
		}
		if force {
			return nil
		}
		for _, f := range formats {
			if p := filepath.Join(out, t.Name+"."+f); exists(p) {
				return runsummary.Skip{Err: fmt.Errorf("%s exists: not overwritten (give --force to overwrite, or another --out)", p)}
			}
		}
		return nil
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
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
