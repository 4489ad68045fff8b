package predict

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/internal/outset"
	"github.com/contactmap/contactmap/pdb"
)

// Pair is one scored residue pair, 0-based, I < J.
type Pair struct {
	I, J int
	P    float32
}

// SortedPairs returns the pairs i < j of an L x L matrix by decreasing
// probability (ties by i, then j).
func SortedPairs(p []float32, l int) []Pair {
	return TopPairs(p, l, 1, 0)
}

// comparePairs orders pairs by decreasing probability, ties by i, then j:
// a total order, so that the pairs kept and their order never depend on
// how they were found.
func comparePairs(a, b Pair) int {
	if c := cmp.Compare(b.P, a.P); c != 0 {
		return c
	}
	if c := cmp.Compare(a.I, b.I); c != 0 {
		return c
	}
	return cmp.Compare(a.J, b.J)
}

// CountPairs returns the number of pairs i < j with j-i >= minSep (at
// least 1) in a chain of length l.
func CountPairs(l, minSep int) int {
	n := l - max(minSep, 1) // pairs at separation d: l-d, for d = minSep..l-1
	if n <= 0 {
		return 0
	}
	if n%2 == 0 { // n(n+1)/2 without the product's overflow where the result fits
		return n / 2 * (n + 1)
	}
	return (n + 1) / 2 * n
}

// TopPairs returns the k most probable pairs i < j with j-i >= minSep (at
// least 1) of an L x L matrix, by decreasing probability, ties by i, then
// j; k <= 0 returns every such pair. It keeps at most k pairs in memory
// besides the matrix: a heap whose root is the worst pair kept.
func TopPairs(p []float32, l, minSep, k int) []Pair {
	minSep = max(minSep, 1)
	n := CountPairs(l, minSep)
	if k <= 0 || k > n {
		k = n
	}
	out := make([]Pair, 0, k)
	worse := func(a, b int) bool { return comparePairs(out[a], out[b]) > 0 }
	down := func(i int) { // sift the pair at i down the heap
		for {
			c := 2*i + 1
			if c >= len(out) {
				return
			}
			if c+1 < len(out) && worse(c+1, c) {
				c++
			}
			if !worse(c, i) {
				return
			}
			out[i], out[c] = out[c], out[i]
			i = c
		}
	}
	for i := 0; i < l-minSep; i++ { // l-minSep: i+minSep could overflow
		for j := i + minSep; j < l; j++ {
			q := Pair{i, j, p[i*l+j]}
			switch {
			case len(out) < k:
				out = append(out, q)
				for c := len(out) - 1; c > 0; { // sift up
					parent := (c - 1) / 2
					if !worse(c, parent) {
						break
					}
					out[c], out[parent] = out[parent], out[c]
					c = parent
				}
			case k > 0 && comparePairs(q, out[0]) < 0:
				out[0] = q
				down(0)
			}
		}
	}
	slices.SortFunc(out, comparePairs)
	return out
}

// RRInfo is what an RR file says besides the scores.
type RRInfo struct {
	Target string
	Method string // model description, METHOD line
	Labels string // the model's contact definition, e.g. "C-alpha pairs closer than 8 Å"
	Seq    string
	MinSep int // pairs with |i-j| >= MinSep are written (at least 1)
	Max    int // at most Max of them, the most probable; 0: every one
}

// WriteRR writes a CASP RR file (PFRMAT RR): header, the sequence in
// lines of 50, then "i j 0 8 p" for the pairs i < j with j-i >= MinSep by
// decreasing probability (1-based; 0 8 is the distance range in Å), ties
// by i, then j; with Max > 0 only the Max most probable of them. CASP
// defines an RR contact by C-beta atoms (C-alpha for glycine): a REMARK
// says which definition the model's probabilities mean, and another how
// many pairs were kept of how many.
func WriteRR(w io.Writer, info RRInfo, p []float32) error {
	l := len(info.Seq)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "PFRMAT RR\nTARGET %s\nAUTHOR contactmap\n", info.Target)
	if info.Labels != "" {
		fmt.Fprintf(bw, "REMARK Probabilities of contact as the model was trained: %s.\n", strings.ReplaceAll(info.Labels, "Å", "Angstrom"))
		fmt.Fprintln(bw, "REMARK CASP's RR contacts are C-beta pairs (C-alpha for glycine) closer than 8 Angstrom.")
	}
	minSep := max(info.MinSep, 1)
	fmt.Fprintf(bw, "REMARK Pairs with |i-j| >= %d, by decreasing probability.\n", minSep)
	pairs := TopPairs(p, l, minSep, info.Max)
	fmt.Fprintf(bw, "REMARK Kept %d of %d pairs, the most probable.\n", len(pairs), CountPairs(l, minSep))
	fmt.Fprintf(bw, "METHOD %s\nMODEL  1\n", info.Method)
	for i := 0; i < l; i += 50 {
		fmt.Fprintln(bw, info.Seq[i:min(i+50, l)])
	}
	for _, q := range pairs {
		fmt.Fprintf(bw, "%d %d 0 8 %.6f\n", q.I+1, q.J+1, q.P)
	}
	fmt.Fprintln(bw, "END")
	return bw.Flush()
}

// ReadRR reads the sequence and pairs (0-based) of an RR file.
func ReadRR(r io.Reader) (seq string, pairs []Pair, err error) {
	sc := bufio.NewScanner(r)
	line := 0
	var sb strings.Builder
	ended := false
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		f := strings.Fields(t)
		switch {
		case t == "":
		case t == "END":
			ended = true
		case len(f) > 0 && (f[0] == "PFRMAT" || f[0] == "TARGET" || f[0] == "AUTHOR" || f[0] == "METHOD" || f[0] == "MODEL" || f[0] == "REMARK"):
		case len(f) == 5:
			i, e1 := strconv.Atoi(f[0])
			j, e2 := strconv.Atoi(f[1])
			p, e3 := strconv.ParseFloat(f[4], 32)
			if e1 != nil || e2 != nil || e3 != nil || i < 1 || j <= i || p < 0 || p > 1 {
				return "", nil, fmt.Errorf("rr line %d: bad contact %q", line, t)
			}
			pairs = append(pairs, Pair{i - 1, j - 1, float32(p)})
		case len(f) == 1 && len(pairs) == 0:
			sb.WriteString(t)
		default:
			return "", nil, fmt.Errorf("rr line %d: unexpected %q", line, t)
		}
	}
	if err := sc.Err(); err != nil {
		return "", nil, err
	}
	if !ended {
		return "", nil, fmt.Errorf("rr: no END")
	}
	return sb.String(), pairs, nil
}

// WriteNPY writes an L x L float32 matrix as a NumPy .npy file (format
// 1.0: magic, version, header length, a Python dict header padded with
// spaces and a newline to a multiple of 64 bytes, then the data).
// Prediction writes symmetric matrices whose diagonal (i = j, a residue
// with itself) is 0: it is not predicted.
func WriteNPY(w io.Writer, p []float32, l int) error {
	header := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", l, l)
	total := 10 + len(header) + 1
	pad := (64 - total%64) % 64
	header += strings.Repeat(" ", pad) + "\n"
	bw := bufio.NewWriter(w)
	bw.WriteString("\x93NUMPY\x01\x00")
	var b [4]byte
	binary.LittleEndian.PutUint16(b[:2], uint16(len(header)))
	bw.Write(b[:2])
	bw.WriteString(header)
	for _, v := range p[:l*l] {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		bw.Write(b[:])
	}
	return bw.Flush()
}

// WriteTSV writes the matrix as L lines of L tab-separated values.
func WriteTSV(w io.Writer, p []float32, l int) error {
	bw := bufio.NewWriter(w)
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			if j > 0 {
				bw.WriteByte('\t')
			}
			bw.WriteString(strconv.FormatFloat(float64(p[i*l+j]), 'g', 6, 32))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// writeSet writes a chain's outputs as a set (outset.Write); tests
// replace it to inject failures.
var writeSet = outset.Write

// writeOutputs writes a target's map in the run's formats, as a set: every
// file to a temporary file of this process's, then all renamed into
// place, so that a failed or interrupted write (a full disk, SIGINT)
// leaves the chain's old outputs whole, never a mixture of old and new.
func writeOutputs(cfg Config, t Target, o Outcome, p []float32, truth *pdb.Contacts, method, labels string) Outcome {
	l := len(t.Seq)
	info := RRInfo{Target: t.ID, Seq: t.Seq, MinSep: cfg.RRMinSep, Max: cfg.RRMax.Limit(l), Labels: labels, Method: method}
	base := filepath.Join(cfg.Out, t.Name)
	var files []outset.File
	for _, f := range cfg.Formats {
		var write func(io.Writer) error
		switch f {
		case "rr":
			write = func(w io.Writer) error { return WriteRR(w, info, p) }
		case "npy":
			write = func(w io.Writer) error { return WriteNPY(w, p, l) }
		case "tsv":
			write = func(w io.Writer) error { return WriteTSV(w, p, l) }
		case "png":
			write = func(w io.Writer) error { return Heatmap(w, t.ID, p, l, truth) }
		}
		files = append(files, outset.File{Path: base + "." + f, Write: write})
	}
	ctx := cfg.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if err := writeSet(ctx, files); err != nil {
		o.Err = err
		return o
	}
	for _, f := range files {
		o.Files = append(o.Files, f.Path)
	}
	return o
}
