package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// finished records what the running work has completed, for the message
// of an interrupted run ("3 of 10 chains written to preds").
var finished struct {
	sync.Mutex
	note string
}

// SetFinished replaces the note of what the running work has completed
// so far (fmt.Sprintf of format and a); "" for nothing.
func SetFinished(format string, a ...any) {
	finished.Lock()
	finished.note = fmt.Sprintf(format, a...)
	finished.Unlock()
}

// Line is the message of interrupted work: msg, then what it finished
// (SetFinished's note), or that nothing was.
func Line(msg string) string {
	finished.Lock()
	defer finished.Unlock()
	if finished.note != "" {
		return msg + "; finished: " + finished.note
	}
	return msg + "; nothing was finished"
}

// cleanups are what a forced exit runs first: the removal of the
// temporary files that the work is still writing.
var cleanups struct {
	sync.Mutex
	fns []func()
}

// OnForcedExit registers f to run before a forced exit of Command.
func OnForcedExit(f func()) {
	cleanups.Lock()
	cleanups.fns = append(cleanups.fns, f)
	cleanups.Unlock()
}

// Command is Watch for a command-line program, its messages prefixed by
// prefix ("contactmap predict") on w: the first SIGINT or SIGTERM says
// "PREFIX: SIGINT: stopping" and cancels the context; a command that has
// not returned within grace (or a second signal) is forced out: the
// cleanups registered with OnForcedExit run, Line says what finished
// ("PREFIX: interrupted by SIGINT; finished: ...") and exit(1) ends the
// process. stop releases the signals; call it when the command has
// returned.
func Command(prefix string, w io.Writer, grace time.Duration, exit func(code int)) (ctx context.Context, stop func()) {
	return Watch(grace, func(s os.Signal) {
		fmt.Fprintf(w, "%s: %v: stopping\n", prefix, Name(s))
	}, func(s os.Signal) {
		cleanups.Lock()
		for _, f := range cleanups.fns {
			f()
		}
		cleanups.Unlock()
		fmt.Fprintln(w, Line(fmt.Sprintf("%s: interrupted by %v", prefix, Name(s))))
		exit(1)
	})
}
