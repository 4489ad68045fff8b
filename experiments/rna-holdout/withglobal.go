package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/contactmap/contactmap/rna/ssnet"
)

// withGlobal writes the network of the model file IN to OUT (spec
// "IN=OUT") under the ensemble-channel rule of -ensemble-global, its
// parameters and the rest of its record unchanged: trial 10's EG, a
// rule at inference only (trials.md). The record's protocol still names
// how the network was trained. OUT must not exist.
func withGlobal(spec string, global int) error {
	in, out, ok := strings.Cut(spec, "=")
	if !ok || in == "" || out == "" {
		return fmt.Errorf("-with-global %q: want IN=OUT", spec)
	}
	if global <= 0 {
		return fmt.Errorf("-with-global: -ensemble-global %d: want the rule's length, above 0", global)
	}
	m, err := ssnet.Load(in)
	if err != nil {
		return err
	}
	if !m.Record.Inputs2D().Ensemble {
		return fmt.Errorf("-with-global: %s: the network has no ensemble channel (in_2d %d)", in, m.Record.Spec.In2D)
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("-with-global: %s exists; not overwritten", out)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("-with-global: %w", err)
	}
	m.Record.EnsembleGlobal = global
	return m.Save(out)
}
