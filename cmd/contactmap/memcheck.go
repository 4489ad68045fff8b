package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/pairnet/memcheck"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// checkMemory checks, before one target is predicted, that its prediction
// fits in the memory available (memcheck.Check: specs are the networks
// run one after another, an RNA model's Net.Spec or an ensemble's
// members; extra the command's own buffers for the target, such as its
// L x L maps). A target that does not fit is refused with the estimate,
// the memory available and its source; under force it is let through
// with that as a warning. Where the memory available is unknown, nothing
// is refused. Predict's chains go through predict.Config.Memory instead,
// the same check.
func checkMemory(name string, specs []pairnet.Spec, l, workers int, extra int64, force bool) (warning string, err error) {
	err = memcheck.Check(name, specs, l, workers, extra)
	var tl *memcheck.TooLargeError
	if !errors.As(err, &tl) {
		return "", err
	}
	if force {
		return err.Error() + ": predicting it anyway (--force)", nil
	}
	return "", forceHint(err)
}

// forceHint adds what to do to a *memcheck.TooLargeError; other errors
// are returned as they are.
func forceHint(err error) error {
	var tl *memcheck.TooLargeError
	if !errors.As(err, &tl) {
		return err
	}
	return fmt.Errorf("%w: skipped (--force tries anyway)", err)
}

// rnaFoldMethods are rna predict's methods that fold with package
// rna/fold, and what each computes.
var rnaFoldMethods = map[string]fold.Method{"mfe": fold.MethodMFE, "centroid": fold.MethodCentroid, "mea-pf": fold.MethodMEA}

// rnaFoldExtra is rna predict's own memory for a molecule of l bases
// beside the fold's: with a PNG among the formats, the dense float32
// L x L pair map predictRNA returns for it (4 bytes a pair) and its RGBA
// image (4 more); nothing without.
func rnaFoldExtra(l int, formats []ssnet.Format) int64 {
	if !slices.Contains(formats, ssnet.PNG) {
		return 0
	}
	n := int64(l)
	side := max(n, 600) + 200 // the map drawn at least 600 pixels wide, and the margins
	return 4*n*n + 4*side*side
}

// rnaHintSpan is the --max-span a refusal of a global fold suggests.
const rnaHintSpan = 200

// checkRNAMemory checks, before rna predict folds a molecule of l bases
// by method (mfe, centroid or mea-pf; other methods pass) with pairs
// spanning at most span bases (0: any), that the fold
// (fold.MemoryEstimate) and the command's own buffers (rnaFoldExtra) fit
// in the memory available, as checkMemory does (with memcheck's margin
// for the garbage collector): a molecule that does not fit is refused
// with the method, the estimate, the memory available and its source,
// and what would fit (--max-span 200, a --format without png, or both); under force it is let through with
// that as a warning.
func checkRNAMemory(method string, l, span int, formats []ssnet.Format, force bool) (warning string, err error) {
	m, ok := rnaFoldMethods[method]
	if !ok {
		return "", nil
	}
	need := func(span int, formats []ssnet.Format) int64 {
		return fold.MemoryEstimate(m, l, span) + rnaFoldExtra(l, formats)
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
	local := (span <= 0 || span >= l) && l > rnaHintSpan
	hint := ""
	for _, c := range []struct {
		ok      bool
		span    int
		formats []ssnet.Format
		say     string
	}{
		{local, rnaHintSpan, formats, fmt.Sprintf("--max-span %d folds", rnaHintSpan)},
		{len(noPNG) < len(formats) && len(noPNG) > 0, span, noPNG, "a --format without png folds"},
		{local && len(noPNG) < len(formats) && len(noPNG) > 0, rnaHintSpan, noPNG, fmt.Sprintf("--max-span %d and a --format without png fold", rnaHintSpan)},
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
