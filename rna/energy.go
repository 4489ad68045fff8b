package rna

import (
	"fmt"
	"io"
	"math"
)

// Kinds of predicted structure an Energy describes.
const (
	EnergyMFE      = "mfe"      // the minimum free energy structure
	EnergyCentroid = "centroid" // the centroid of an ensemble
	EnergyMEA      = "mea"      // the maximum expected accuracy structure of an ensemble
)

// Energy is the free energy of a predicted structure under an energy
// model (the Turner 2004 parameters of package rna/fold), which
// WriteCT, WriteBPSEQ and WriteDotBracket record when a Structure has
// one, as RNAfold prints it:
//
//	CT:          the length line "  100 ENERGY = -20.90 NAME" (RNAstructure's; mfold's "dG =")
//	BPSEQ:       comment lines "# energy = -20.90 kcal/mol (mfe)" and, for
//	             an ensemble's structure, "# free energy of ensemble = -21.63 kcal/mol"
//	dot-bracket: after the structure " (-20.90)" for the MFE (RNAfold's
//	             "( -20.90)"), " { -19.80 d=3.21}" for a centroid and
//	             " { -19.50 MEA=85.10}" for an MEA structure (RNAfold -p
//	             --MEA), then for those the comment line
//	             "# free energy of ensemble = -21.63 kcal/mol"
//
// The readers of this package read those files back (the energy is not
// read).
type Energy struct {
	// Kind is EnergyMFE, EnergyCentroid or EnergyMEA.
	Kind string
	// DeltaG is the free energy of the structure in kcal/mol.
	DeltaG float64
	// Ensemble is the free energy of the ensemble, -kT ln Z, in kcal/mol
	// (centroid and MEA).
	Ensemble float64
	// Score is the centroid's expected base-pair distance to the
	// ensemble (d) or the MEA structure's expected accuracy (MEA).
	Score float64
}

// check reports an energy that cannot be written.
func (e *Energy) check() error {
	switch e.Kind {
	case EnergyMFE, EnergyCentroid, EnergyMEA:
	default:
		return fmt.Errorf("rna: energy of kind %q, want %s, %s or %s", e.Kind, EnergyMFE, EnergyCentroid, EnergyMEA)
	}
	for _, v := range []float64{e.DeltaG, e.Ensemble, e.Score} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("rna: %s energy %v, ensemble %v, score %v: not finite", e.Kind, e.DeltaG, e.Ensemble, e.Score)
		}
	}
	return nil
}

// ensemble reports whether the structure comes from an ensemble.
func (e *Energy) ensemble() bool { return e.Kind != EnergyMFE }

// dotBracketSuffix is the energy after the structure of a dot-bracket
// line, as RNAfold prints it.
func (e *Energy) dotBracketSuffix() string {
	switch e.Kind {
	case EnergyCentroid:
		return fmt.Sprintf(" {%6.2f d=%.2f}", e.DeltaG, e.Score)
	case EnergyMEA:
		return fmt.Sprintf(" {%6.2f MEA=%.2f}", e.DeltaG, e.Score)
	}
	return fmt.Sprintf(" (%6.2f)", e.DeltaG)
}

// writeEnsembleLine writes the comment line of the ensemble free energy.
func (e *Energy) writeEnsembleLine(w io.Writer) {
	if e.ensemble() {
		fmt.Fprintf(w, "# free energy of ensemble = %.2f kcal/mol\n", e.Ensemble)
	}
}
