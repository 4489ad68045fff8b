package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/predict"
	"github.com/contactmap/contactmap/scnn/loop"
)

// flagHint adds to an error of the libraries, which describe the problem
// in their own terms, the command-line flags that address it. Errors it
// does not know are returned as they are.
func flagHint(err error) error {
	if err == nil {
		return nil
	}
	var me *predict.ModeError
	hint := ""
	switch {
	case errors.As(err, &me):
		flag := "--ss"
		if me.Input == predict.InputMSA {
			flag = "--msa-dir"
		}
		if me.Missing {
			hint = "give " + flag
		} else {
			hint = "drop " + flag
		}
	case errors.Is(err, predict.ErrNoMirror):
		hint = "give --pdb-dir"
	case errors.Is(err, predict.ErrNoMSANetwork):
		hint = "use --model msa or --method plm"
	case errors.Is(err, predict.ErrNeedAlignment):
		hint = "--method plm; --msa-dir holds <ID>.a3m|.aln|.fasta"
	case errors.Is(err, features.ErrNoChainInRange):
		hint = "see --min-len, --max-len"
	case errors.Is(err, loop.ErrRunExists):
		hint = "continue it with --resume or replace it with --force"
	case errors.Is(err, loop.ErrNoCheckpoint):
		hint = "start without --resume"
	}
	if hint == "" {
		return err
	}
	return fmt.Errorf("%w (%s)", err, hint)
}

// interrupted is the error of a training run stopped by SIGINT or
// SIGTERM: how to continue depends on whether the run has a checkpoint
// in out (one stopped while preparing its data, before its first
// step, has none, and a --resume would be refused).
func interrupted(err error, out string) error {
	if _, statErr := os.Stat(filepath.Join(out, loop.CheckpointFile)); statErr == nil {
		return fmt.Errorf("%w in %s; continue with --resume", err, out)
	}
	return fmt.Errorf("%w in %s; nothing was checkpointed yet, so run the same command again to start it", err, out)
}
