package ssnet

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/heatmap"
	"github.com/contactmap/contactmap/rna"
)

// Format is an output file of a prediction.
type Format string

const (
	BPSEQ      Format = "bpseq"
	CT         Format = "ct"
	DotBracket Format = "db"
	PNG        Format = "png"
)

// Formats are every output format, in the order written.
var Formats = []Format{BPSEQ, CT, DotBracket, PNG}

// ParseFormats reads a comma-separated list of formats ("bpseq,ct,db,png").
func ParseFormats(s string) ([]Format, error) {
	var out []Format
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		ok := false
		for _, k := range Formats {
			if Format(f) == k {
				out, ok = append(out, k), true
			}
		}
		if !ok {
			return nil, fmt.Errorf("ssnet: unknown output format %q (bpseq, ct, db, png)", f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("ssnet: no output format in %q", s)
	}
	return out, nil
}

var pairWords = heatmap.Words{Unit: "base", Predicted: "P(pair)", Pair: "known base pair; white: no pair"}

type structureTruth struct{ s *rna.Structure }

func (t structureTruth) At(i, j int) (bool, bool) { return t.s.Partner[i] == j, true }

// WriteOutputs writes a predicted structure s and its probabilities p (L x
// L) as dir/base.FORMAT for each format, each file atomically; known (may
// be nil) is drawn below the PNG's diagonal. It returns the paths written.
func WriteOutputs(dir, base string, s *rna.Structure, p []float32, known *rna.Structure, formats []Format) ([]string, error) {
	var paths []string
	for _, f := range formats {
		path := filepath.Join(dir, base+"."+string(f))
		var write func(io.Writer) error
		switch f {
		case BPSEQ:
			write = func(w io.Writer) error { return rna.WriteBPSEQ(w, s) }
		case CT:
			write = func(w io.Writer) error { return rna.WriteCT(w, s) }
		case DotBracket:
			write = func(w io.Writer) error { return rna.WriteDotBracket(w, s) }
		case PNG:
			write = func(w io.Writer) error {
				if known == nil {
					return heatmap.Draw(w, s.Name, p, len(s.Seq), nil, pairWords)
				}
				return heatmap.Draw(w, s.Name, p, len(s.Seq), structureTruth{known}, pairWords)
			}
		}
		if err := fileio.WriteAtomic(path, write); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
