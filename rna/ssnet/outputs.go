package ssnet

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/internal/heatmap"
	"github.com/contactmap/contactmap/internal/outset"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/draw"
)

// Format is an output file of a prediction.
type Format string

const (
	BPSEQ      Format = "bpseq"
	CT         Format = "ct"
	DotBracket Format = "db"
	PNG        Format = "png" // pair probabilities, an arc diagram of the structure under them
	SVG        Format = "svg" // the structure drawn (rna/draw)
)

// Formats are every output format, in the order written.
var Formats = []Format{BPSEQ, CT, DotBracket, PNG, SVG}

// ParseFormats reads a comma-separated list of formats ("bpseq,ct,db,png,svg").
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
			return nil, fmt.Errorf("ssnet: unknown output format %q (bpseq, ct, db, png, svg)", f)
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
// L) as dir/base.FORMAT for each format, as a set (outset.Write: all or
// none replaced, stopped by ctx without a file changed); known (may be
// nil) is drawn below the PNG's diagonal and under the axis of its arc
// diagram, s above it. It returns the paths written.
func WriteOutputs(ctx context.Context, dir, base string, s *rna.Structure, p []float32, known *rna.Structure, formats []Format) ([]string, error) {
	var files []outset.File
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
			write = func(w io.Writer) error { return heatmap.DrawMap(w, pairMap(s, p, known)) }
		case SVG:
			write = func(w io.Writer) error { return draw.WriteSVG(w, s) }
		}
		files = append(files, outset.File{Path: path, Write: write})
	}
	if err := outset.Write(ctx, files); err != nil {
		return nil, err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	return paths, nil
}

// pairMap is the PNG of a prediction: the pair probabilities, the known
// pairs below the diagonal, and the arc diagram of the structure chosen
// (and of the known one) under the map.
func pairMap(s *rna.Structure, p []float32, known *rna.Structure) heatmap.Map {
	m := heatmap.Map{Title: s.Name, P: p, L: len(s.Seq), Words: pairWords,
		Arcs: &heatmap.Arcs{Pairs: s.Pairs(), PairsLabel: fmt.Sprintf("predicted structure (%d pairs)", len(s.Pairs()))}}
	if m.Arcs.Pairs == nil {
		m.Arcs.Pairs = [][2]int{}
	}
	if known != nil {
		m.Truth = structureTruth{known}
		m.Arcs.Known = known.Pairs()
		if m.Arcs.Known == nil {
			m.Arcs.Known = [][2]int{}
		}
		m.Arcs.KnownLabel = fmt.Sprintf("known structure (%d pairs)", len(m.Arcs.Known))
	}
	return m
}
