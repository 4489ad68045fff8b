package main

import (
	"errors"
	"fmt"

	"github.com/contactmap/contactmap/internal/memcheck"
	"github.com/contactmap/contactmap/pairnet"
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
