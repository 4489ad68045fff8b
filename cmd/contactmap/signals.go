package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/interrupt"
	"github.com/contactmap/contactmap/internal/outset"
)

// stopGrace is how long a command has, after SIGINT or SIGTERM, to stop
// on its own (its context is cancelled at once); after it the process
// removes its temporary files and exits. A second signal ends the wait.
// Outputs are written to temporary files and renamed into place, so what
// a forced exit leaves is the outputs finished before it, never a part.
var stopGrace = time.Second

// exitNow ends the process; tests replace it.
var exitNow = os.Exit

// finished records what a command has completed, for the message of an
// interrupted run ("3 of 10 chains written to preds").
var finished struct {
	sync.Mutex
	note string
}

// setFinished replaces the note of what the running command has
// completed so far.
func setFinished(format string, a ...any) {
	finished.Lock()
	finished.note = fmt.Sprintf(format, a...)
	finished.Unlock()
}

func finishedNote() string {
	finished.Lock()
	defer finished.Unlock()
	return finished.note
}

// atExit holds the cleanups of a forced exit: the removal of temporary
// files that the command is still writing.
var atExit struct {
	sync.Mutex
	fns []func()
}

func init() {
	// The temporary files of outputs being written: a forced exit leaves
	// the outputs finished before it, never a part.
	onForcedExit(outset.RemoveOwnTemps)
	onForcedExit(fileio.RemoveLiveTemps)
}

// onForcedExit registers f to run before a forced exit.
func onForcedExit(f func()) {
	atExit.Lock()
	atExit.fns = append(atExit.fns, f)
	atExit.Unlock()
}

// signalContext returns a context cancelled by the first SIGINT or
// SIGTERM (interrupt.Watch). The command then has stopGrace to return; if
// it has not, the registered cleanups run, a line says what finished and
// the process exits with status 1. The returned stop releases the
// signals; call it when the command has returned.
func signalContext(name string, errOut io.Writer) (context.Context, func()) {
	return interrupt.Watch(stopGrace, func(s os.Signal) {
		fmt.Fprintf(errOut, "contactmap %s: %v: stopping\n", name, interrupt.Name(s))
	}, func(s os.Signal) {
		atExit.Lock()
		for _, f := range atExit.fns {
			f()
		}
		atExit.Unlock()
		fmt.Fprintln(errOut, interruptedLine(fmt.Sprintf("contactmap %s: interrupted by %v", name, interrupt.Name(s))))
		exitNow(1)
	})
}

// interruptedLine is the message of an interrupted command: msg, then
// what it finished.
func interruptedLine(msg string) string {
	if note := finishedNote(); note != "" {
		return msg + "; finished: " + note
	}
	return msg + "; nothing was finished"
}
