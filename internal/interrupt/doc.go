// Package interrupt stops a command-line program on SIGINT or SIGTERM in
// two stages. The first signal cancels a context, so that the work stops
// at its next look at it and the program returns as it always does; if
// the program has not returned within a grace period (a long kernel that
// never looks), or a second signal comes, it is forced out. Watch leaves
// what a forced exit does to its caller; Command does what a command
// does: it runs the cleanups registered with OnForcedExit, says what the
// work finished (SetFinished, Line) and exits with status 1. The
// outputs of the program's packages are written to temporary files and
// renamed into place (internal/outset, internal/fileio), so a forced exit
// that removes the temporary files leaves the outputs finished before
// it, never a part of one.
package interrupt
