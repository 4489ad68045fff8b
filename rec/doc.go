// Package rec is sequential recommendation with CosRec and its
// symmetry-structured variant SCosRec, the third system of
//
//	K. D. G. Maduranga, V. Zadorozhnyy, Q. Ye. Symmetry-structured
//	convolutional neural networks. Neural Computing and Applications 35,
//	4421–4434 (2023). arXiv:2203.02056, section 5.3.
//
// built on the scnn network library.
//
// CosRec (A. Yan, S. Cheng, W.-C. Kang, M. Wan, J. McAuley, "CosRec: 2D
// convolutional neural networks for sequential recommendation", CIKM 2019)
// embeds a user's last L items, forms the L x L x 2d pairwise encoding
// [e_i, e_j] (scnn.SelfCartesian), runs two blocks of a 1x1 convolution and
// a valid 3x3 convolution (each with batchnorm and ReLU), average-pools,
// and scores candidate items by a dot product of [tanh(FC(pool)), user
// embedding] with per-item output weights. SCosRec makes every map
// symmetric: the pairwise encoding goes through a 1x1 symmetry-generating
// convolution (scnn.SymGenConv, an outer sum of the item embeddings) and
// every other convolution is symmetry-preserving (scnn.SymPresConv), so
// the maps are stored and computed as upper triangles.
//
// Data (ratings.go, split.go): ratings in MovieLens form (u.data: user,
// item, rating, time, tab-separated; or ML-1M's "::"), each user's
// interactions in time order, split per user as Caser and CosRec do: the
// first 70% for training, the next 10% for validation, the last 20% for
// test. Items are numbered from the training part only; an item first seen
// in validation or test has no embedding, cannot be recommended and counts
// as a miss (the original code gave such items an id that collides with a
// real item). Evaluation (eval.go) ranks every known item, excluding the
// user's history, and reports MAP over the full ranking, Precision@k and
// Recall@k, with a most-popular baseline (popular.go).
//
// The networks are scnn's two kinds, scnn.CNN and scnn.SCNN, called here
// CosRec and SCosRec; model files, checkpoints, run directories, flags
// and messages name them "cosrec" and "scosrec" (kind.go: KindName,
// ParseKind, Config's JSON).
//
// The commands of contactmap rec are functions here, each a
// configuration, a call and its outcome: Train (TrainOptions,
// TrainResult), Recommend (RecommendConfig, a RecommendOutcome per user;
// recommend.go), EvaluateModels (EvalConfig, EvalOutcome) and
// CompareRuns (CompareConfig, Comparison; report.go). LoadData reads the
// ratings each of them takes (data.go).
package rec
