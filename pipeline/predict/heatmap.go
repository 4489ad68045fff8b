package predict

import (
	"io"

	"github.com/contactmap/contactmap/internal/heatmap"
	"github.com/contactmap/contactmap/pdb"
)

// contactWords are the heatmap's words for contact maps.
var contactWords = heatmap.Words{Unit: "residue", Predicted: "P(contact)",
	Pair: "true contact (the model's definition)", Unknown: "residue without coordinates; white: no contact"}

// Heatmap draws the contact prediction p (L x L) above the diagonal and,
// if truth is not nil, the true contacts below it (black contact, white no
// contact, light grey a residue without coordinates), with residue numbers
// on both axes, a colour bar and a legend. A chain longer than
// heatmap.MaxSide (1,000) residues is max-pooled to at most that many
// pixels a side, its contacts kept visible (heatmap.DrawMap).
func Heatmap(w io.Writer, title string, p []float32, l int, truth *pdb.Contacts) error {
	if truth == nil { // a nil *pdb.Contacts must not become a non-nil interface
		return heatmap.Draw(w, title, p, l, nil, contactWords)
	}
	return heatmap.Draw(w, title, p, l, truth, contactWords)
}
