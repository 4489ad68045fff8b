package features

import (
	"fmt"
	"sort"
	"strings"
)

// How the features read one-letter codes outside the 20 standard amino
// acids (IUPAC-IUBMB, "Nomenclature and symbolism for amino acids and
// peptides", 1983, and its 2009 addition of U and O):
//
//	U  selenocysteine   as C, the residue it replaces
//	O  pyrrolysine      as K
//	B  D or N           the mean of the two (profile, hydropathy,
//	Z  E or Q           propensities and contact energies)
//	J  I or L
//	X and any other letter: unknown (background profile, no hydropathy,
//	no contact energy)
//
// The sequence itself is kept as given: outputs name the residue the input
// named.
var residueMix = func() (t [256][]int8) {
	for i := 0; i < len(AminoAcids); i++ {
		t[AminoAcids[i]] = []int8{int8(i)}
	}
	for code, as := range map[byte]string{'U': "C", 'O': "K", 'B': "DN", 'Z': "EQ", 'J': "IL"} {
		for i := 0; i < len(as); i++ {
			t[code] = append(t[code], aaIndex[as[i]])
		}
	}
	return t
}()

// readAs names what a non-standard code is read as.
var readAs = map[byte]string{'U': "C", 'O': "K", 'B': "D/N mean", 'Z': "E/Q mean", 'J': "I/L mean", 'X': "unknown"}

// NonStandard describes the non-standard residue codes of an upper-case
// sequence and how the features read them, e.g. "non-standard residues:
// U at 12 read as C; X at 1, 2 read as unknown"; "" when every residue is
// one of the 20 standard ones. Callers warn with it once per record.
func NonStandard(seq string) string {
	at := map[byte][]int{}
	for i := 0; i < len(seq); i++ {
		if c := seq[i]; aaIndex[c] < 0 {
			at[c] = append(at[c], i+1)
		}
	}
	if len(at) == 0 {
		return ""
	}
	codes := make([]byte, 0, len(at))
	for c := range at {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(a, b int) bool { return at[codes[a]][0] < at[codes[b]][0] })
	var parts []string
	for _, c := range codes {
		pos := at[c]
		var list string
		if len(pos) > 5 {
			list = fmt.Sprintf("%d positions from %d", len(pos), pos[0])
		} else {
			s := make([]string, len(pos))
			for i, p := range pos {
				s[i] = fmt.Sprint(p)
			}
			list = strings.Join(s, ", ")
		}
		as, ok := readAs[c]
		if !ok {
			as = "unknown"
		}
		parts = append(parts, fmt.Sprintf("%c at %s read as %s", c, list, as))
	}
	return "non-standard residues: " + strings.Join(parts, "; ")
}
