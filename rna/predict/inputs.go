package predict

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/rna"
)

// Input is one molecule to predict, with its known structure if the
// input file had one.
type Input struct {
	Name, Seq string
	Known     *rna.Structure
	Ambiguous int  // IUPAC ambiguity codes read as N
	DNA       bool // a FASTA record with T and no U
}

// ReadInputs reads FASTA, dot-bracket, CT and BPSEQ files (plain, gzip
// or zstd; the format told by the extension where it names one, else by
// content: SniffFormat), and standard input ("-", any of them, read from
// stdin). Bad records, and inputs that are empty or hold no record, are
// returned as errors beside the good ones. A FASTA record that looks like
// a protein is refused; one that looks like DNA is marked (Input.DNA).
func ReadInputs(args []string, stdin io.Reader) ([]Input, []error) {
	var out []Input
	var errs []error
	for _, a := range args {
		name, ext := a, inputExt(a)
		var r io.ReadCloser
		var err error
		if a == "-" {
			name, ext = "standard input", ""
			if r, err = fileio.NewReader(stdin); err != nil {
				err = fmt.Errorf("%s: %w", name, err)
			}
		} else {
			r, err = fileio.Open(a) // decompresses; its errors name the file
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// Bounded: a gzip bomb or gigabytes of zeros are refused after a
		// bounded read, binary data by its first block.
		data, err := fileio.ReadText(r, rna.MaxTotal, rna.MaxLine)
		r.Close()
		if err == nil && fileio.IsBinary(data[:min(len(data), fileio.SniffSize)]) {
			err = fmt.Errorf("binary data, not an RNA sequence or structure file")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		if len(bytes.TrimSpace(data)) == 0 {
			errs = append(errs, fmt.Errorf("%s: empty input: no sequence to predict", name))
			continue
		}
		got, bad := readFile(data, name, SniffFormat(data, ext))
		if len(got) == 0 && len(bad) == 0 {
			bad = []error{fmt.Errorf("%s: no FASTA record (a record starts with a '>' line)", name)}
		}
		out, errs = append(out, got...), append(errs, bad...)
	}
	return out, errs
}

// inputExt is the lower-case extension of a file name, a compression
// suffix aside.
func inputExt(name string) string { return filepath.Ext(uncompressedName(strings.ToLower(name))) }

// uncompressedName is name without a compression suffix (.gz, .zst).
func uncompressedName(name string) string {
	for _, z := range []string{".gz", ".zst"} {
		name = strings.TrimSuffix(name, z)
	}
	return name
}

// SniffFormat is the format of an RNA input ("ct", "bpseq", "dbn" or
// "fasta"): its extension's (.ct and
// .nopct: CT; .bpseq; .dbn and .db: dot-bracket), else its content's:
// dot-bracket where a line after a '>' header holds only structure
// characters, CT where the first line is a count and a name and the
// second has six fields, BPSEQ where the first line has three fields
// "index base partner", and FASTA otherwise.
func SniffFormat(data []byte, ext string) string {
	switch ext {
	case ".ct", ".nopct":
		return "ct"
	case ".bpseq":
		return "bpseq"
	case ".dbn", ".db":
		return "dbn"
	}
	var lines []string // the first 64 lines that are not blank or '#' comments
	for rest := string(data); rest != "" && len(lines) < 64; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		if t := strings.TrimSpace(l); t != "" && t[0] != '#' {
			lines = append(lines, t)
		}
	}
	if len(lines) == 0 {
		return "fasta"
	}
	if lines[0][0] == '>' {
		for _, l := range lines[1:] {
			if l[0] != '>' && strings.Trim(l, ".()[]{}<>") == "" {
				return "dbn"
			}
		}
		return "fasta"
	}
	isInt := func(s string) bool { _, err := strconv.Atoi(s); return err == nil }
	f := strings.Fields(lines[0])
	switch {
	case len(f) == 3 && isInt(f[0]) && len(f[1]) == 1 && isInt(f[2]):
		return "bpseq"
	case len(f) >= 1 && isInt(f[0]) && len(lines) > 1 && len(strings.Fields(lines[1])) >= 6:
		return "ct"
	}
	return "fasta"
}

// readFile reads one input in the format given (SniffFormat). A CT,
// BPSEQ or dot-bracket input is scored against its own structure.
func readFile(data []byte, name, format string) ([]Input, []error) {
	switch format {
	case "ct", "bpseq":
		read := rna.ReadCT
		if format == "bpseq" {
			read = rna.ReadBPSEQ
		}
		s, err := read(bytes.NewReader(data), name)
		if err != nil {
			return nil, []error{err}
		}
		// RNA STRAND names a record by its file name: drop the extension.
		base := uncompressedName(filepath.Base(name))
		s.Name = strings.TrimSuffix(s.Name, filepath.Ext(base))
		if s.Name == "" {
			s.Name = strings.TrimSuffix(base, filepath.Ext(base))
		}
		return []Input{{Name: s.Name, Seq: s.Seq, Known: s}}, nil
	case "dbn":
		ss, err := rna.ReadDBN(bytes.NewReader(data), name)
		var out []Input
		for _, s := range ss {
			out = append(out, Input{Name: s.Name, Seq: s.Seq, Known: s})
		}
		if err != nil {
			return out, []error{err}
		}
		return out, nil
	}
	seqs, bad := rna.ReadFASTA(bytes.NewReader(data), name)
	out := make([]Input, len(seqs))
	for i, q := range seqs {
		out[i] = Input{Name: q.Name, Seq: q.Seq, Ambiguous: q.Ambiguous}
	}
	return checkFASTALetters(data, name, out, bad)
}

// proteinFraction is the share of letters of a record's raw sequence
// that are not A, C, G, U, T or N (either case) from which ReadInputs
// takes it for a protein. IUPAC codes (R Y K M S W B D H V) are letters
// of amino acids too, and count against it: a protein spelt in them
// reads as RNA, but no real RNA is mostly ambiguity codes.
const proteinFraction = 0.5

// fastaLetters is one record of a FASTA file as rna.ReadFASTA reads it,
// for checkFASTALetters.
type fastaLetters struct {
	name   string
	other  float64 // share of its letters not A, C, G, U, T or N
	dna    bool    // T and no U
	readOK bool    // rna.ReadFASTA returns it (else an error)
}

// checkFASTALetters refuses the records of a FASTA file that look like
// proteins (over proteinFraction of their letters not A, C, G, U, T or
// N), with an error saying so in place of rna.ReadFASTA's (an invalid
// base) or of the molecule (a protein in IUPAC-compatible letters), and
// marks the records that look like DNA. The records are read again,
// by the same reader and bounds, and matched to rna.ReadFASTA's results
// in order; where they do not match (a file the reader stopped in),
// the results are returned as they are.
func checkFASTALetters(data []byte, path string, seqs []Input, bad []error) ([]Input, []error) {
	fr := fileio.NewFASTAReader(bytes.NewReader(data))
	fr.CRLines, fr.Unit = true, "nt"
	fr.MaxSeq, fr.MaxRecords, fr.MaxTotal, fr.MaxHeader = rna.MaxSequence, rna.MaxRecords, rna.MaxTotal, rna.MaxLine
	var recs []fastaLetters
	nOK, protein := 0, false
	for {
		rec, err := fr.Read()
		if err != nil {
			break
		}
		var r fastaLetters
		if f := strings.Fields(rec.Name + " " + rec.Desc); len(f) > 0 {
			r.name = f[0]
		}
		letters, other, t, u := 0, 0, 0, 0
		for _, c := range rec.Seq {
			lc := c | ('a' - 'A')
			if lc < 'a' || lc > 'z' {
				continue
			}
			letters++
			switch lc {
			case 'a', 'c', 'g', 'n':
			case 't':
				t++
			case 'u':
				u++
			default:
				other++
			}
		}
		if letters > 0 {
			r.other = float64(other) / float64(letters)
		}
		r.dna = t > 0 && u == 0
		seq, err := rna.NormalizeSequence(string(rec.Seq))
		r.readOK = err == nil && seq != ""
		if r.readOK {
			nOK++
		}
		protein = protein || r.other > proteinFraction
		recs = append(recs, r)
	}
	if !protein && !slices.ContainsFunc(recs, func(r fastaLetters) bool { return r.dna }) {
		return seqs, bad
	}
	if nOK != len(seqs) || len(recs)-nOK > len(bad) {
		return seqs, bad // not the records rna.ReadFASTA read
	}
	var out []Input
	var errs []error
	si, bi := 0, 0
	for k, r := range recs {
		var in Input
		var err error
		if r.readOK {
			in, si = seqs[si], si+1
		} else {
			err, bi = bad[bi], bi+1
		}
		if r.other > proteinFraction {
			errs = append(errs, fmt.Errorf("%s: record %d (%s): this looks like a protein sequence (%.0f%% of its letters are not A, C, G, U, T or N): use contactmap predict", path, k+1, r.name, 100*r.other))
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		in.DNA = r.dna
		out = append(out, in)
	}
	return out, append(errs, bad[bi:]...)
}
