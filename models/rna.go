package models

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"os"
	"sort"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// rna-scnn.scnn is the shipped RNA model: the template-short SCNN picked
// on the validation molecules by the rule of
// experiments/rna-template/README.md (fixed before any result), from
// `make train-rna-template`; it takes homology-template channels from
// the references (RNARefs) and predicts from sequence alone where no
// reference reaches its minimum identity. Its training log is
// rna-scnn.train_log.tsv.
//
//go:embed rna-scnn.scnn
var rnaSCNNFile []byte

// rna-scnn-seq.scnn is the sequence-only default-protocol RNA SCNN, the
// shipped model before (the best validation accuracy of seeds 1-5, seed 2:
// `contactmap rna train --protocol default --model scnn --seed 2 --workers
// 1`; experiments/rna-default; docs/rna.md); its training log is
// rna-scnn-seq.train_log.tsv.
//
//go:embed rna-scnn-seq.scnn
var rnaSCNNSeqFile []byte

// rna-refs-16s.txt.gz is the 16S training set of the RNA models
// (data/rna/16s-finaltrain.txt, gzip-compressed; the authors' data set,
// LGPL-3.0, see data/rna/README.md): the references of homology transfer
// and of the template networks' channels, so that both work from any
// directory.
//
//go:embed rna-refs-16s.txt.gz
var rnaRefsFile []byte

// RNARefsName names the embedded reference set in messages and records.
const RNARefsName = "data/rna/16s-finaltrain.txt"

// RNARefs returns the embedded reference molecules (the 16S training set).
func RNARefs() ([]ssnet.Molecule, error) {
	zr, err := gzip.NewReader(bytes.NewReader(rnaRefsFile))
	if err != nil {
		return nil, fmt.Errorf("models: embedded RNA references: %w", err)
	}
	defer zr.Close()
	ss, err := rna.ReadFiveLine(zr, "shipped "+RNARefsName)
	if err != nil {
		return nil, err
	}
	out := make([]ssnet.Molecule, len(ss))
	for i, s := range ss {
		out[i] = ssnet.Molecule{Structure: s}
	}
	return out, nil
}

// DefaultRNA is the RNA model used when none is given.
const DefaultRNA = "rna-scnn"

var rnaFiles = map[string][]byte{"rna-scnn": rnaSCNNFile, "rna-scnn-seq": rnaSCNNSeqFile}

// RNANames lists the shipped RNA models.
func RNANames() []string {
	var n []string
	for k := range rnaFiles {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// LoadRNA returns the shipped RNA model of that name or else reads spec as
// a model file, and a description of where it came from.
func LoadRNA(spec string) (*ssnet.Model, string, error) {
	data, ok := rnaFiles[spec]
	if !ok {
		if _, err := os.Stat(spec); err != nil {
			return nil, "", fmt.Errorf("RNA model %q: not a shipped model (%v) and %w", spec, RNANames(), err)
		}
		m, err := ssnet.Load(spec)
		return m, spec, err
	}
	from := "shipped " + spec + " (models/" + spec + ".scnn)"
	m, err := ssnet.ReadModel(bytes.NewReader(data), from)
	return m, from, err
}
