// Package ssnet predicts RNA secondary structure (base-pair maps) with the
// paper's pair networks, the second system of
//
//	K. D. G. Maduranga, V. Zadorozhnyy, Q. Ye. Symmetry-structured
//	convolutional neural networks. Neural Computing and Applications 35,
//	4421–4434 (2023). arXiv:2203.02056, section 5.2,
//
// on the 16S rRNA data of its authors (550 training, 28 validation and 35
// test molecules, built on D. Willmott's ss-inf). The networks are
// instances of package pairnet: the CNN (one-hot L x 5 -> BiLSTM -> Dense
// -> concat -> self-Cartesian -> blocks of parallel convolutions ->
// re-injection of the one-hot pair map -> 3x3 to one channel) and the SCNN
// (the same with a 1x1 sgConv pair map, spConvs, and the re-injected map
// through a 1x1 sgConv).
//
// Training (train.go) follows the paper: weighted binary cross-entropy
// with positive weight 5 over the pairs i < j, Adam (learning rate 1e-3
// for the CNN, 2e-3 for the SCNN, L2 1e-5), batches of 10 random crops of
// the training molecules (500 nt in the paper); the model with the best
// validation accuracy is kept. Inference runs on whole molecules, and
// structures come from the authors' greedy decoding (rna.Decode).
// Protocols (protocol.go) name the paper's settings and a default one that
// trains in minutes on two cores.
package ssnet
