// Package models holds the shipped contact models, embedded in every
// binary so that prediction from a sequence works from any directory.
//
// scnn.scnn and cnn.scnn are the default-configuration SCNN and CNN of
// `make train` (see README "Results"); each file records its architecture,
// training data, labels, seed and code revision.
package models

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"

	"github.com/contactmap/contactmap/pipeline/model"
)

var (
	//go:embed scnn.scnn
	scnnFile []byte
	//go:embed cnn.scnn
	cnnFile []byte
)

// Default is the name of the model used when none is given.
const Default = "scnn"

// Shipped maps the names of the shipped models to their files.
var Shipped = map[string]string{"scnn": "models/scnn.scnn", "cnn": "models/cnn.scnn"}

// Load returns the shipped model of that name ("scnn", "cnn") or else
// reads spec as a model file, and a description of where it came from.
func Load(spec string) (*model.Model, string, error) {
	data, ok := map[string][]byte{"scnn": scnnFile, "cnn": cnnFile}[spec]
	if !ok {
		if _, err := os.Stat(spec); err != nil {
			return nil, "", fmt.Errorf("model %q: not a shipped model (scnn, cnn) and %w", spec, err)
		}
		m, err := model.LoadModel(spec)
		return m, spec, err
	}
	from := "shipped " + spec + " (" + Shipped[spec] + ")"
	m, err := model.ReadModel(bytes.NewReader(data), from)
	return m, from, err
}
