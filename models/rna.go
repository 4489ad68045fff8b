package models

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"sort"

	"github.com/contactmap/contactmap/rna/ssnet"
)

// rna-scnn.scnn is the default-protocol RNA SCNN with the best validation
// accuracy of seeds 1-5, seed 2 (`contactmap rna train --protocol default
// --model scnn --seed 2 --workers 1`; experiments/rna-default; README "RNA
// secondary structure"); its training log is rna-scnn.train_log.tsv.
//
//go:embed rna-scnn.scnn
var rnaSCNNFile []byte

// DefaultRNA is the RNA model used when none is given.
const DefaultRNA = "rna-scnn"

var rnaFiles = map[string][]byte{"rna-scnn": rnaSCNNFile}

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
