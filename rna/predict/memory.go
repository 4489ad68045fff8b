package predict

import (
	"errors"
	"fmt"
	"slices"

	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/pairnet/memcheck"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// FoldExtra is a run's own memory for a molecule of l bases beside the
// fold's: with a PNG among the formats, the dense float32 L x L pair map
// a method returns for it (4 bytes a pair) and its RGBA image (4 more);
// nothing without.
func FoldExtra(l int, formats []ssnet.Format) int64 {
	if !slices.Contains(formats, ssnet.PNG) {
		return 0
	}
	n := int64(l)
	side := max(n, 600) + 200 // the map drawn at least 600 pixels wide, and the margins
	return 4*n*n + 4*side*side
}

// hintSpan is the --max-span a refusal of a global fold suggests.
const hintSpan = 200

// CheckFoldMemory checks, before a molecule of l bases is folded by
// method (one that folds: ssnet.Method.FoldBytes above 0; other methods
// pass) with pairs spanning at most span bases (0: any), that the fold
// (FoldBytes) and the run's own buffers (FoldExtra) fit in the
// memory available (memcheck.Check, with its margin for the garbage
// collector): a molecule that does not fit is refused with the method,
// the estimate, the memory available and its source, and what would fit
// (--max-span 200, a --format without png, or both); under force it is
// let through with that as a warning.
func CheckFoldMemory(method string, l, span int, formats []ssnet.Format, force bool) (warning string, err error) {
	m, ok := ssnet.MethodNamed(method)
	if !ok || m.FoldBytes(l, span) == 0 {
		return "", nil
	}
	need := func(span int, formats []ssnet.Format) int64 {
		return m.FoldBytes(l, span) + FoldExtra(l, formats)
	}
	err = memcheck.Check("", nil, l, 1, need(span, formats))
	var tl *memcheck.TooLargeError
	if !errors.As(err, &tl) {
		return "", err
	}
	err = &foldTooLarge{method, tl}
	if force {
		return err.Error() + ": folding it anyway (--force)", nil
	}
	// What would fit: the local fold, and without the PNG's L x L map.
	noPNG := slices.DeleteFunc(slices.Clone(formats), func(f ssnet.Format) bool { return f == ssnet.PNG })
	local := m.Folds && (span <= 0 || span >= l) && l > hintSpan // only the Turner folds take --max-span
	hint := ""
	for _, c := range []struct {
		ok      bool
		span    int
		formats []ssnet.Format
		say     string
	}{
		{local, hintSpan, formats, fmt.Sprintf("--max-span %d folds", hintSpan)},
		{len(noPNG) < len(formats) && len(noPNG) > 0, span, noPNG, "a --format without png folds"},
		{local && len(noPNG) < len(formats) && len(noPNG) > 0, hintSpan, noPNG, fmt.Sprintf("--max-span %d and a --format without png fold", hintSpan)},
	} {
		if b, _ := memcheck.Estimate(nil, l, 1, need(c.span, c.formats)); c.ok && b <= tl.Avail {
			hint = fmt.Sprintf("%s it in about %s; ", c.say, memcheck.GiB(b))
			break
		}
	}
	return "", fmt.Errorf("%w: skipped (%s--force tries anyway)", err, hint)
}

// foldTooLarge is a *memcheck.TooLargeError for a fold, naming its
// method.
type foldTooLarge struct {
	method string
	*memcheck.TooLargeError
}

func (e *foldTooLarge) Error() string {
	return fmt.Sprintf("%s of %d nt needs about %s of memory, and %s is available (%s)", e.method, e.L, memcheck.GiB(e.Need), memcheck.GiB(e.Avail), e.Source)
}

func (e *foldTooLarge) Unwrap() error { return e.TooLargeError }

// hybridParamsBytes bounds the copy of fold's parameters a hybrid fold
// makes for its span (Params.WithMaxSpan copies the tables: 612,648
// bytes in this build).
const hybridParamsBytes = 1 << 20

// networkExtra is a run's own memory for a molecule of l bases beside
// the networks' passes: the probability map, the decoder's table, the
// template channels (full and packed) and the PNG, about 32 bytes a
// pair, and an ensemble's mean, 8 more; a network with energy channels
// also folds the sequence (fold.FoldBytes: 16 bytes a pair), and one
// with the ensemble channel computes its partition function
// (ssnet.EnsembleFold.Bytes: the largest of the networks' rules; the
// further channels at other temperatures, computed one after another,
// take the same), and a hybrid network (Record.Hybrid) folds its scores
// with Turner's energies (fold.MethodPartitionBonus under its rule's
// span) into a probability map of its own, 4 bytes a pair more, with a
// copy of the energy parameters for its span (fold.Params is about 600
// KB of tables; hybridParamsBytes).
func networkExtra(l int, members int, energy bool, ensemble, hybrid []ssnet.EnsembleFold) int64 {
	n := int64(l)
	extra := 32 * n * n
	if members > 1 {
		extra += 8 * n * n
	}
	if energy {
		extra += fold.DefaultParams().FoldBytes(l)
	}
	var ens int64
	for _, f := range ensemble {
		ens = max(ens, f.Bytes(l))
	}
	extra += ens
	var hy int64
	for _, f := range hybrid {
		hy = max(hy, fold.MemoryEstimate(fold.MethodPartitionBonus, l, f.Span(l))+4*n*n+hybridParamsBytes)
	}
	return extra + hy
}

// CheckNetworkMemory checks, before a molecule of l bases is predicted
// by the networks (run one after another), that the passes
// (memcheck.Check) and networkExtra fit in the memory available: a
// molecule that does not fit is refused with the estimate, the memory
// available and its source; under force it is let through with that as
// a warning. Where the memory available is unknown, nothing is refused.
func CheckNetworkMemory(nets []ssnet.Network, l, workers int, force bool) (warning string, err error) {
	var specs []pairnet.Spec
	energy := false
	var ensemble, hybrid []ssnet.EnsembleFold
	for _, n := range nets {
		if n.Model.Record.Hybrid {
			hybrid = append(hybrid, n.Model.Record.EnsembleFold())
		}
		specs = append(specs, n.Model.Net.Spec)
		energy = energy || n.Model.Record.UsesEnergy()
		if n.Model.Record.Inputs2D().Ensemble {
			ensemble = append(ensemble, n.Model.Record.EnsembleFold())
		}
	}
	err = memcheck.Check("", specs, l, workers, networkExtra(l, len(nets), energy, ensemble, hybrid))
	var tl *memcheck.TooLargeError
	if !errors.As(err, &tl) {
		return "", err
	}
	if force {
		return err.Error() + ": predicting it anyway (--force)", nil
	}
	return "", fmt.Errorf("%w: skipped (--force tries anyway)", err)
}

// isTooLarge reports whether err refuses a molecule for memory (a
// *memcheck.TooLargeError): a skip, not a failure.
func isTooLarge(err error) bool {
	var tl *memcheck.TooLargeError
	return errors.As(err, &tl)
}
