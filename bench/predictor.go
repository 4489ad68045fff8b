package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/models"
)

// The predictor cases time the shipped predictors as a
// user runs them: `contactmap predict` with its defaults (the shipped
// default model, every output) on one protein sequence, and `contactmap
// rna predict` on one RNA, at the lengths of predictorLengths. Each run is
// the whole process (an exec side, coevo.go: start-up, model loading,
// features, inference, outputs), its peak memory the process's maximum
// resident set size. The inputs are random sequences of a fixed seed,
// written to predictorDir before the cases run.

var predictorLengths = []int{1000, 2000, 3000}

// predictorDir holds the inputs and the outputs of the predictor cases.
func predictorDir() string { return filepath.Join(os.TempDir(), "contactmap-bench-predict") }

// predictorInput is the FASTA file of a molecule of length l: "protein"
// or "rna".
func predictorInput(what string, l int) string {
	return filepath.Join(predictorDir(), fmt.Sprintf("%s-L%d.fa", what, l))
}

// predictorCases are the predictor rows, where bin (the contactmap
// program) is not "".
func predictorCases(bin string) []benchCase {
	if bin == "" {
		return nil
	}
	out := filepath.Join(predictorDir(), "out")
	var cs []benchCase
	for _, what := range []string{"protein", "rna"} {
		for _, l := range predictorLengths {
			cmd := []string{bin, "predict", "--force", "--out", out, predictorInput(what, l)}
			if what == "rna" {
				// The default model by name, so that the run records which
				// one it timed (the table's label reads it back).
				cmd = []string{bin, "rna", "predict", "--model", models.DefaultRNA, "--force", "--out", out, predictorInput(what, l)}
			}
			cs = append(cs, benchCase{Group: "predictor", Name: fmt.Sprintf("%s/L%d", what, l), MaxReps: 1, NoWarmup: true,
				Sides: []side{{Label: "contactmap", Task: task{Kind: "exec", Command: cmd, Outputs: out}}}})
		}
	}
	return cs
}

// writePredictorInputs writes the predictor cases' input sequences.
func writePredictorInputs() error {
	if err := os.MkdirAll(predictorDir(), 0o755); err != nil {
		return err
	}
	for _, what := range []string{"protein", "rna"} {
		letters := "ACDEFGHIKLMNPQRSTVWY"
		if what == "rna" {
			letters = "ACGU"
		}
		for _, l := range predictorLengths {
			rng := rand.New(rand.NewPCG(uint64(l), 29))
			seq := make([]byte, l)
			for i := range seq {
				seq[i] = letters[rng.IntN(len(letters))]
			}
			text := fmt.Sprintf(">bench-%s-L%d random sequence\n%s\n", what, l, seq)
			if err := os.WriteFile(predictorInput(what, l), []byte(text), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// lookContactmap resolves the -contactmap flag: the program's path, or ""
// with the reason where it cannot run here.
func lookContactmap(name string) (path, why string) { return lookProgram("-contactmap", name) }

// predictorTable is the section of the predictor cases, or "" when the
// run has none.
func (r *report) predictorTable() string {
	cs := r.group("predictor")
	if len(cs) == 0 {
		return ""
	}
	// The RNA model timed: the one its command names (runs before it
	// named one timed the default of then, rna-scnn).
	rnaModel := func(s sideResult) string {
		f := strings.Fields(s.Backend)
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "--model" {
				return f[i+1]
			}
		}
		return ""
	}
	named := ""
	for _, c := range cs {
		if p := c.side("contactmap"); p != nil && strings.HasPrefix(c.Name, "rna/") && rnaModel(*p) != "" {
			named = rnaModel(*p)
		}
	}
	var b strings.Builder
	b.WriteString("## The shipped predictors on one sequence\n\n")
	if named == "" {
		b.WriteString("`contactmap predict SEQ.fa` (the default model, `distilled`: one SCNN; RR, .npy and PNG outputs) and `contactmap rna predict SEQ.fa` (the default `rna-scnn` with its greedy decoder, the MFE fold its energy channels need, every output), each a process of its own on a random sequence of length L, one run: the wall time from start to exit and the process's maximum resident set size (ru_maxrss).\n\n")
	} else {
		fmt.Fprintf(&b, "`contactmap predict SEQ.fa` (the default model, `distilled`: one SCNN; RR, .npy and PNG outputs) and `contactmap rna predict --model %s SEQ.fa` (the default RNA model then, with its own decoder and the folds its input channels need, every output), each a process of its own on a random sequence of length L, one run: the wall time from start to exit and the process's maximum resident set size (ru_maxrss).\n\n", named)
	}
	b.WriteString("| predictor | L | time | peak MiB |\n|---|---:|---:|---:|\n")
	for _, c := range cs {
		what, l, _ := strings.Cut(c.Name, "/L")
		var s sideResult
		if p := c.side("contactmap"); p != nil {
			s = *p
		}
		label := "protein default (distilled)"
		if what == "rna" {
			label = "RNA default (rna-scnn)"
			if m := rnaModel(s); m != "" {
				label = "RNA default (" + m + ")"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", label, l, sec(s.Median), peakCell(s))
	}
	b.WriteString("\n")
	return b.String()
}
