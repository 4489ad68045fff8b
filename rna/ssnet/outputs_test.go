package ssnet

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/heatmap"
	"github.com/contactmap/contactmap/rna"
)

func TestParseFormatsSVG(t *testing.T) {
	got, err := ParseFormats("bpseq, svg,png")
	if err != nil || len(got) != 3 || got[1] != SVG {
		t.Errorf("ParseFormats: %v, %v", got, err)
	}
	if _, err := ParseFormats("svgz"); err == nil || !strings.Contains(err.Error(), "svg") {
		t.Errorf("an unknown format: %v", err)
	}
}

// The outputs of a molecule: the SVG drawing parses, the PNG carries the
// arc diagram (taller than the map alone), and an interrupted write
// leaves the old set.
func TestWriteOutputsDrawings(t *testing.T) {
	dir := t.TempDir()
	s, err := rna.ParseDotBracket("hp", "GGGGAAAACCCCAGGGAAACCCU", "((((....))))(((...)))..")
	if err != nil {
		t.Fatal(err)
	}
	l := len(s.Seq)
	p := make([]float32, l*l)
	for _, pr := range s.Pairs() {
		p[pr[0]*l+pr[1]], p[pr[1]*l+pr[0]] = 0.9, 0.9
	}
	paths, err := WriteOutputs(context.Background(), dir, "hp", s, p, s, Formats)
	if err != nil || len(paths) != len(Formats) {
		t.Fatalf("WriteOutputs: %v, %v", paths, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "hp.svg"))
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("hp.svg: %v", err)
		}
	}
	f, _ := os.Open(filepath.Join(dir, "hp.png"))
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	heatmap.Draw(&plain, "hp", p, l, structureTruth{s}, pairWords)
	alone, _ := png.Decode(&plain)
	if img.Bounds().Dy() <= alone.Bounds().Dy()+heatmap.Side(l)/2 {
		t.Errorf("PNG %v, the map alone %v: no arc diagram", img.Bounds(), alone.Bounds())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before, _ := os.ReadFile(filepath.Join(dir, "hp.bpseq"))
	if _, err := WriteOutputs(ctx, dir, "hp", &rna.Structure{Name: "hp", Seq: s.Seq, Partner: make([]int, l)}, p, nil, Formats); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "hp.bpseq"))
	es, _ := os.ReadDir(dir)
	if !bytes.Equal(before, after) || len(es) != len(Formats) {
		t.Errorf("a cancelled write changed the outputs or left %d files", len(es))
	}
}
