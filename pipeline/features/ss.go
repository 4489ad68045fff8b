package features

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// SS is a predicted secondary structure: per residue, the probabilities
// of helix, strand and coil (in that order).
type SS [][3]float32

// ErrSS marks a malformed secondary-structure file.
var ErrSS = errors.New("bad secondary-structure prediction")

func ssFromLetters(s string) (SS, error) {
	out := make(SS, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'H', 'G', 'I':
			out[i] = [3]float32{1, 0, 0}
		case 'E', 'B':
			out[i] = [3]float32{0, 1, 0}
		case 'C', '-', 'T', 'S', 'L', ' ':
			out[i] = [3]float32{0, 0, 1}
		default:
			return nil, fmt.Errorf("%w: state %q at residue %d", ErrSS, s[i], i+1)
		}
	}
	return out, nil
}

// ReadSSFasta reads 3-state predictions as FASTA records named by chain
// ID (as data/ss/psipred.fasta: one letter H, E or C per residue of the
// chain's SEQRES). Names are upper-cased.
func ReadSSFasta(path string) (map[string]string, error) {
	f, err := fileio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out, err := ParseSSFasta(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// ParseSSFasta is ReadSSFasta on an uncompressed stream. Every record must
// hold only secondary-structure states (H, G, I; E, B; C, -, T, S, L), and
// a name may appear once.
func ParseSSFasta(r io.Reader) (map[string]string, error) {
	recs, err := readFasta(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSS, err)
	}
	out := make(map[string]string, len(recs))
	for k, rec := range recs {
		name := strings.ToUpper(rec.Name)
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%w: record %d: %s appears twice", ErrSS, k+1, rec.Name)
		}
		if _, err := ssFromLetters(string(rec.Seq)); err != nil {
			return nil, fmt.Errorf("record %d (%s): %w", k+1, rec.Name, err)
		}
		out[name] = string(rec.Seq)
	}
	return out, nil
}

// ReadSS2 reads a PSIPRED .ss2 file (VFORMAT: index, residue, state, then
// the coil, helix and strand probabilities).
func ReadSS2(r io.Reader) (SS, error) {
	r, err := sniffSS(r)
	if err != nil {
		return nil, err
	}
	var out SS
	sc := fileio.NewScanner(r, maxSSLine)
	line := 0
	for sc.Scan() {
		line++
		if len(out) > MaxSequence {
			return nil, fileio.TooLarge("line %d: more than %d residues (the reader's bound)", line, MaxSequence)
		}
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		f := strings.Fields(t)
		if len(f) != 6 {
			return nil, fmt.Errorf("line %d: %w: %d fields, want 6", line, ErrSS, len(f))
		}
		if n, err := strconv.Atoi(f[0]); err != nil || n != len(out)+1 {
			return nil, fmt.Errorf("line %d: %w: residue number %q", line, ErrSS, f[0])
		}
		var p [3]float64
		for k := 0; k < 3; k++ {
			v, err := strconv.ParseFloat(f[3+k], 64)
			if err != nil || v < 0 || v > 1 || math.IsNaN(v) {
				return nil, fmt.Errorf("line %d: %w: probability %q", line, ErrSS, f[3+k])
			}
			p[k] = v
		}
		out = append(out, [3]float32{float32(p[1]), float32(p[2]), float32(p[0])}) // H, E, C
	}
	return out, fileio.ScanErr(sc, line+1, maxSSLine)
}

// maxSSLine is the longest line ReadSS2 and ReadHoriz read.
const maxSSLine = 1 << 20

// sniffSS refuses binary data.
func sniffSS(r io.Reader) (io.Reader, error) {
	r, err := fileio.Sniff(r)
	if errors.Is(err, fileio.ErrBinary) {
		err = fmt.Errorf("%w: %w, not a PSIPRED file", ErrSS, err)
	}
	return r, err
}

// ReadHoriz reads a PSIPRED .horiz file (the "Pred:" lines).
func ReadHoriz(r io.Reader) (SS, error) {
	r, err := sniffSS(r)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	sc := fileio.NewScanner(r, maxSSLine)
	line := 0
	for sc.Scan() {
		line++
		if t := strings.TrimSpace(sc.Text()); strings.HasPrefix(t, "Pred:") {
			b.WriteString(strings.TrimSpace(t[5:]))
			if b.Len() > MaxSequence {
				return nil, fileio.TooLarge("line %d: more than %d residues (the reader's bound)", line, MaxSequence)
			}
		}
	}
	if err := fileio.ScanErr(sc, line+1, maxSSLine); err != nil {
		return nil, err
	}
	if b.Len() == 0 {
		return nil, fmt.Errorf("%w: no Pred: lines", ErrSS)
	}
	return ssFromLetters(b.String())
}

// SSSource finds predictions by chain ID: a FASTA file of predictions, or
// a directory of <ID>.ss2 / <ID>.horiz files.
type SSSource struct {
	path  string
	fasta map[string]string
}

// OpenSSSource opens path (file or directory).
func OpenSSSource(path string) (*SSSource, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	s := &SSSource{path: path}
	if !st.IsDir() {
		if s.fasta, err = ReadSSFasta(path); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Lookup returns the prediction for id ("1ABC_A"), ok false if there is
// none.
func (s *SSSource) Lookup(id string) (SS, bool, error) {
	if s.fasta != nil {
		letters, ok := s.fasta[strings.ToUpper(id)]
		if !ok {
			return nil, false, nil
		}
		ss, err := ssFromLetters(letters)
		if err != nil {
			return nil, true, fmt.Errorf("%s record %s: %w", s.path, id, err)
		}
		return ss, true, nil
	}
	for _, ext := range []string{".ss2", ".horiz"} {
		p := filepath.Join(s.path, id+ext)
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		var ss SS
		if ext == ".ss2" {
			ss, err = ReadSS2(f)
		} else {
			ss, err = ReadHoriz(f)
		}
		f.Close()
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", p, err)
		}
		return ss, true, nil
	}
	return nil, false, nil
}

// EstimateSS is the sequence-only stand-in used when no prediction is
// given: Chou-Fasman helix and strand propensities averaged over a window
// of 7 residues, s_H and s_E, with coil s_C = 1, turned into
// probabilities p_x = s_x^4 / (s_H^4 + s_E^4 + s_C^4). It is a crude
// estimate; feature files record that it was used.
func EstimateSS(seq string) SS {
	out := make(SS, len(seq))
	for i := range seq {
		var h, e float64
		n := 0
		for k := max(0, i-3); k <= min(len(seq)-1, i+3); k++ {
			if mix := residueMix[seq[k]]; mix != nil {
				for _, a := range mix {
					h += chouFasman[a][0] / float64(len(mix))
					e += chouFasman[a][1] / float64(len(mix))
				}
				n++
			}
		}
		if n == 0 {
			out[i] = [3]float32{1. / 3, 1. / 3, 1. / 3}
			continue
		}
		h, e = math.Pow(h/float64(n), 4), math.Pow(e/float64(n), 4)
		z := h + e + 1
		out[i] = [3]float32{float32(h / z), float32(e / z), float32(1 / z)}
	}
	return out
}
