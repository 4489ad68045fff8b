// Package runsummary writes what a prediction run did with each of its
// inputs, for the commands that predict (contactmap predict, rna
// predict): the run's summary.tsv, a row per input (name, length, status
// ok/skipped/failed, outputs, method, for RNA the energy, the error),
// merged with the summary an earlier run left (fileio.WriteMergedTable),
// and the failure list printed at the end of a run.
//
// A Skip marks an input refused before any work (its outputs exist, a
// strict run refuses what it would only warn of): its row says skipped,
// not failed.
package runsummary
