package scnn

import (
	"errors"
	"fmt"
)

// Kind is the network of a model, in each of the three systems built on
// this library: the paper's baseline CNN (ordinary convolutions on full
// maps) or its SCNN (symmetry-generating and symmetry-preserving
// convolutions on packed maps). Protein contact models and RNA models
// store it as its string, "cnn" or "scnn"; the recommendation system
// calls the two CosRec and SCosRec and maps them to its own names
// (package rec).
type Kind string

// The kinds of network.
const (
	CNN  Kind = "cnn"
	SCNN Kind = "scnn"
)

// String is the kind's name, "cnn" or "scnn".
func (k Kind) String() string { return string(k) }

// Valid reports whether k is CNN or SCNN.
func (k Kind) Valid() bool { return k == CNN || k == SCNN }

// ErrKind marks a name that is not a kind of network (ParseKind).
var ErrKind = errors.New("unknown kind of network")

// ParseKind reads "cnn" or "scnn". Another name gives an error wrapping
// ErrKind; the systems say it in their own words (model.ArchByName,
// ssnet.ParseKind, rec.ParseKind).
func ParseKind(s string) (Kind, error) {
	if k := Kind(s); k.Valid() {
		return k, nil
	}
	return "", fmt.Errorf("scnn: %w %q (cnn or scnn)", ErrKind, s)
}
