package main

import (
	"errors"
	"fmt"

	"github.com/contactmap/contactmap/pairnet/memcheck"
)

// forceHint adds what to do to a *memcheck.TooLargeError; other errors
// are returned as they are.
func forceHint(err error) error {
	var tl *memcheck.TooLargeError
	if !errors.As(err, &tl) {
		return err
	}
	return fmt.Errorf("%w: skipped (--force tries anyway)", err)
}
