package ssnet

import "strings"

// The bundled 16S data of the paper's RNA experiment (data/rna/README.md),
// by path from the repository's root.
const (
	TrainFile = "data/rna/16s-finaltrain.txt"
	ValidFile = "data/rna/16s-finalvalid.txt"
	TestFile  = "data/rna/test/testdata.txt"
	// FoldSeedFile holds the MFE, centroid and MEA structures of the test
	// molecules (make rna-fold-cache, ReadFoldSeed), so that an
	// evaluation on them folds none.
	FoldSeedFile = "data/rna/test/folds.tsv.gz"
)

// SplitFile is the bundled file of a split: train, validation (or
// valid) or test; another name is an ErrUsage.
func SplitFile(split string) (string, error) {
	switch split {
	case "test":
		return TestFile, nil
	case "validation", "valid":
		return ValidFile, nil
	case "train":
		return TrainFile, nil
	}
	return "", usageError("unknown split %q (train, validation or test)", split)
}

// ParseDecoders reads a comma-separated list of decoders
// ("greedy,mea").
func ParseDecoders(list string) ([]Decoder, error) {
	var ds []Decoder
	for _, name := range strings.Split(list, ",") {
		d, err := ParseDecoder(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}
