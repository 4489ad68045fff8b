// Package usage marks the errors in what a caller asked for (a flag value
// out of range, a file list that names no file, models that cannot be
// evaluated together), so that a command line tells them from failures
// of the work: exit status 2, not 1 (contactmap's convention). The
// libraries that know such errors (rna/ssnet, rna/predict,
// pipeline/compare) and the command share one mark, Err, and their
// messages read "usage: ...".
package usage
