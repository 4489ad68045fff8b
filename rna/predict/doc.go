// Package predict predicts RNA secondary structures, as contactmap rna
// predict does, with the shape of the protein path (pipeline/predict):
// a Config holding every setting, Run over the inputs, and an Outcome
// per molecule.
//
// The inputs are FASTA, dot-bracket, CT and BPSEQ files, told apart by
// their extension or their content (ReadInputs, SniffFormat); a record
// that looks like a protein is refused, one that looks like DNA is read
// as RNA with a warning. The predictor is one of the methods of
// rna/ssnet (ssnet.Methods): the pair networks of the paper (Maduranga
// et al., arXiv:2203.02056, section 5.2) and the model-free ones,
// homology transfer, the Turner 2004 folds of rna/fold (MFE, the
// ensemble's centroid and MEA structures, as RNAfold computes them) and
// the stacking heuristic. Before a molecule is predicted, its memory is
// estimated (CheckFoldMemory, CheckNetworkMemory) and a molecule that
// would not fit is skipped. The outputs are ssnet.WriteOutputs': BPSEQ,
// CT, dot-bracket, a PNG of the pair map and an SVG drawing.
//
// Eval is rna eval: the networks under each decoder and the model-free
// baselines, scored on a set of molecules of known structure.
//
// The shipped models are package models', which sits above this one:
// the command passes them in (Shipped). Nothing here writes to standard
// output or error; the command attaches its messages and progress bars
// through the hooks of Config and EvalConfig.
package predict
