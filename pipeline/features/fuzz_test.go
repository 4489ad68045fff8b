package features

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
)

// Fuzz targets of every reader in this package. Each checks what a parser
// must guarantee when it accepts an input, not only that it does not
// panic. `make fuzz` runs them; the seeds run in `make test`.

func addFile(f *testing.F, path string, max int) {
	f.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:min(len(b), max)])
}

// FuzzDecode fuzzes the decoded content of a feature file. The input gets
// its CRC-32 appended, so the fuzzer explores the layout behind the
// checksum instead of stopping at it.
func FuzzDecode(f *testing.F) {
	for _, seq := range []string{"ACDEF", "M"} {
		c, _ := Compute("F_A", seq, nil, nil)
		var buf bytes.Buffer
		if err := Write(&buf, c); err != nil {
			f.Fatal(err)
		}
		raw, err := decompressBytes(buf.Bytes())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw[:len(raw)-4])
	}
	f.Add([]byte("CMAPFEAT\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, body []byte) {
		data := binary.LittleEndian.AppendUint32(append([]byte(nil), body...), crc32.ChecksumIEEE(body))
		c, err := decode(data)
		if err != nil {
			return
		}
		l := c.L()
		p := l * (l + 1) / 2
		if len(c.OneD) != l*N1D || len(c.TwoD) != p*N2D || c.Labels != nil && (c.Labels.L != l || len(c.Labels.Contact) != p || len(c.Labels.Known) != p) {
			t.Fatal("inconsistent chain accepted")
		}
		// What was accepted writes and reads back the same.
		var buf bytes.Buffer
		if err := Write(&buf, c); err != nil {
			t.Fatalf("accepted chain does not write: %v", err)
		}
		back, err := Read(&buf)
		if err != nil || back.ID != c.ID || back.Seq != c.Seq || len(back.TwoD) != len(c.TwoD) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// FuzzReadSequences: accepted FASTA gives, for every record not marked
// unusable, a non-empty upper-case sequence without a '*' anywhere (testdata/fuzz holds ">\n**", read as "*" when
// only one trailing '*' was dropped).
func FuzzReadSequences(f *testing.F) {
	f.Add([]byte(">a desc\nMKV\nLA*\n>b\n\nacde\n"))
	f.Add([]byte(">\n>x\n"))
	f.Add([]byte(">x\nMK**\n>y\nM*K\n"))
	f.Add([]byte("MKV\n"))
	addFile(f, dataDir+"/msa/1CTF_A.fasta", 2000)
	f.Fuzz(func(t *testing.T, data []byte) {
		seqs, err := ReadSequences(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, s := range seqs {
			if s.Err != nil {
				if !errors.Is(s.Err, ErrRecord) {
					t.Fatalf("record %q: error %v does not wrap ErrRecord", s.Name, s.Err)
				}
				continue
			}
			if s.Seq == "" || s.Seq != strings.ToUpper(s.Seq) || strings.Contains(s.Seq, "*") {
				t.Fatalf("record %q: sequence %q", s.Name, s.Seq)
			}
		}
	})
}

// FuzzMSAFeatures reads an A3M alignment and computes the features of a
// chain from it, the path that crashed biogo's aligner on U and O. The
// chain is the query with the fuzzer's edits; whatever is accepted gives
// finite features of the chain's length.
func FuzzMSAFeatures(f *testing.F) {
	f.Add([]byte(">q\nMKTAYIAKQRQISFVKSHFSRQ\n>s\nMKTAYLAKQRQISFVKAHFSRQ\n>t\nMRTAYIAKQ-QISFVKSHFSRE\n"), "MKTAYIAKQRQISFVKSHFSRQ")
	f.Add([]byte(">q\nMKUAYIAKQROISFVKSHFSRQ\n>s\nMKCAYLAKQRKISFVKAHFSRQ\n"), "GSMKUAYIAKQROISFVKSHFSRQ")
	f.Add([]byte(">q\nMKBZJX\n>s\nMKDEIL\n"), "MKBZJX")
	f.Fuzz(func(t *testing.T, data []byte, seq string) {
		if len(seq) > 300 || len(data) > 1<<14 {
			return
		}
		a, err := msa.Parse(data, "fuzz", msa.A3M)
		if err != nil {
			return
		}
		c, err := Compute("F_A", seq, nil, a)
		if err != nil {
			return
		}
		if c.L() != len(seq) {
			t.Fatalf("L = %d for %d residues", c.L(), len(seq))
		}
		for _, v := range append(append([]float32(nil), c.OneD...), c.TwoD...) {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("non-finite feature %v", v)
			}
		}
	})
}

// FuzzReadSS2 and FuzzReadHoriz: accepted predictions are probability
// triples.
func FuzzReadSS2(f *testing.F) {
	f.Add([]byte("# PSIPRED VFORMAT (PSIPRED V4.0)\n\n   1 M C   0.900  0.050  0.050\n   2 K H   0.100  0.800  0.100\n"))
	f.Add([]byte("   1 M C   NaN  0.050  0.050\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := ReadSS2(bytes.NewReader(data))
		if err == nil {
			checkSS(t, ss, false)
		}
	})
}

func FuzzReadHoriz(f *testing.F) {
	f.Add([]byte("Conf: 99\nPred: CH\n  AA: MK\n\nConf: 9\nPred: E\n  AA: L\n"))
	f.Add([]byte("Pred: CX\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := ReadHoriz(bytes.NewReader(data))
		if err == nil {
			checkSS(t, ss, true)
		}
	})
}

// FuzzParseSSFasta: every accepted record converts to a prediction of its
// length.
func FuzzParseSSFasta(f *testing.F) {
	addFile(f, dataDir+"/ss/psipred.fasta", 3000)
	f.Add([]byte(">1ABC_A\nHHHEEECC\n>1abc_a\nC\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ParseSSFasta(bytes.NewReader(data))
		if err != nil {
			return
		}
		for name, letters := range recs {
			ss, err := ssFromLetters(letters)
			if err != nil || len(ss) != len(letters) || name != strings.ToUpper(name) {
				t.Fatalf("record %q accepted but: %v", name, err)
			}
			checkSS(t, ss, true)
		}
	})
}

func checkSS(t *testing.T, ss SS, oneHot bool) {
	t.Helper()
	for i, p := range ss {
		sum := p[0] + p[1] + p[2]
		for _, v := range p {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("residue %d: %v", i+1, p)
			}
		}
		if oneHot && sum != 1 {
			t.Fatalf("residue %d: %v is not one-hot", i+1, p)
		}
	}
}

// FuzzReadManifest: an accepted manifest writes back (WriteManifest's
// format) and reads back to the same entries; every error names the file.
func FuzzReadManifest(f *testing.F) {
	head := strings.Join(manifestHeader, "\t") + "\n"
	f.Add([]byte(head + "1ABC_A\t1ABC\tA\t57\t55\ttrain\tseq\tab12\t1ABC_A.feat.zst\n"))
	f.Add([]byte(head + "x\tx\tx\t+3\t0\ttest\tmsa+ss\t\tx.feat.zst\n"))
	f.Add([]byte(head + "x\tx\tx\t3\t4\ttest\tss\t\t../x\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz/manifest.tsv"
		es, err := readManifest(bytes.NewReader(data), name)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := writeManifest(&buf, es); err != nil {
			t.Fatal(err)
		}
		back, err := readManifest(&buf, "again")
		if err != nil {
			t.Fatalf("written back, does not read: %v", err)
		}
		if !reflect.DeepEqual(back, es) {
			t.Fatalf("entries %+v read back as %+v", es, back)
		}
	})
}
