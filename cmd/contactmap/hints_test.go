package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/predict"
	"github.com/contactmap/contactmap/scnn/loop"
)

// Library errors name no flag; the command line adds the flags that
// address them, keeps the error's identity, and leaves other errors as
// they are.
func TestFlagHint(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&predict.ModeError{Input: predict.InputSS, Missing: true}, "give --ss"},
		{&predict.ModeError{Input: predict.InputSS}, "drop --ss"},
		{&predict.ModeError{Input: predict.InputMSA, Missing: true}, "give --msa-dir"},
		{&predict.ModeError{Input: predict.InputMSA}, "drop --msa-dir"},
		{fmt.Errorf("x: %w", predict.ErrNoMirror), "give --pdb-dir"},
		{predict.ErrNoMSANetwork, "use --model msa or --method plm"},
		{predict.ErrNeedAlignment, "--msa-dir"},
		{features.ErrNoChainInRange, "--min-len, --max-len"},
		{fmt.Errorf("train: %w", loop.ErrRunExists), "--resume or replace it with --force"},
		{loop.ErrNoCheckpoint, "start without --resume"},
	} {
		got := flagHint(c.err)
		if !strings.Contains(got.Error(), c.want) || !errors.Is(got, c.err) && !errors.As(got, new(*predict.ModeError)) {
			t.Errorf("%v: %v, want a hint %q keeping the error", c.err, got, c.want)
		}
		if strings.Contains(c.err.Error(), "--") {
			t.Errorf("library error %q names a flag", c.err)
		}
	}
	other := errors.New("disk full")
	if flagHint(other) != other || flagHint(nil) != nil {
		t.Error("an unknown error was changed")
	}
}
