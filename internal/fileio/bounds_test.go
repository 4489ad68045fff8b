package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/biogo/biogo/alphabet"
	"github.com/biogo/biogo/io/seqio/fasta"
	"github.com/biogo/biogo/seq/linear"
	"github.com/klauspost/compress/gzip"
)

// repeat is an endless reader of one byte, counting what it gives.
type repeat struct {
	c    byte
	read int64
}

func (r *repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.c
	}
	r.read += int64(len(p))
	return len(p), nil
}

// gzipBomb returns a gzip stream of prefix followed by endless bytes c,
// compressed lazily, and the generator (to count what was consumed).
func gzipBomb(prefix string, c byte) (io.Reader, *repeat) {
	gen := &repeat{c: c}
	pr, pw := io.Pipe()
	go func() {
		zw := gzip.NewWriter(pw)
		io.WriteString(zw, prefix)
		_, err := io.Copy(zw, gen)
		pw.CloseWithError(err)
	}()
	return pr, gen
}

func TestIsBinary(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"", false},
		{">a desc\nACGT\r\n", false},
		{"ATOM  \tÅngström ü\n", false},
		{"x\x00y", true},
		{strings.Repeat("\x01\x02ab", 100), true},
		{strings.Repeat("\xff\xfeab", 100), true},
		{strings.Repeat("a", 99) + "\x01", false},
		{strings.Repeat("a", 4095) + "\xc3", false}, // cut inside a rune
	} {
		if got := IsBinary([]byte(c.in)); got != c.want {
			t.Errorf("IsBinary(%.20q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestQuote(t *testing.T) {
	if got := Quote("ab"); got != `"ab"` {
		t.Errorf("Quote = %s", got)
	}
	got := Quote(strings.Repeat("\x01", 300))
	if len(got) > 4*40+10 || !strings.HasSuffix(got, "...") {
		t.Errorf("Quote of 300 bytes = %s", got)
	}
}

// TestReadTextBounds: a gzip bomb of one endless line, or of zeros, is
// refused after a bounded read.
func TestReadTextBounds(t *testing.T) {
	bomb, gen := gzipBomb(">x\n", 'A')
	r, err := NewReader(bomb)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadText(r, 1<<30, 1<<20)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "line 2 longer than 1048576 bytes (the reader's bound)") {
		t.Fatalf("endless line: %v", err)
	}
	if gen.read > 8<<20 {
		t.Errorf("read %d bytes before refusing", gen.read)
	}
	zeros := &repeat{c: 0}
	if _, err := ReadText(zeros, 1<<30, 1<<20); !errors.Is(err, ErrBinary) || zeros.read > 1<<16 {
		t.Errorf("zeros: %v after %d bytes", err, zeros.read)
	}
	lines := &repeat{c: '\n'}
	if _, err := ReadText(lines, 1<<20, 100); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 1048576 bytes") || lines.read > 2<<20 {
		t.Errorf("endless blank lines: %v after %d bytes", err, lines.read)
	}
	got, err := ReadText(strings.NewReader("ab\ncd"), 5, 2)
	if err != nil || string(got) != "ab\ncd" {
		t.Errorf("within bounds: %q %v", got, err)
	}
	if _, err := ReadText(strings.NewReader("ab\ncde"), 100, 2); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("long second line: %v", err)
	}
}

// TestFASTAReaderBounds: a record beyond the sequence bound is refused
// after reading about the bound, naming the record and the bound.
func TestFASTAReaderBounds(t *testing.T) {
	bomb, gen := gzipBomb(">big desc\n", 'A')
	r, err := NewReader(bomb)
	if err != nil {
		t.Fatal(err)
	}
	fr := NewFASTAReader(r)
	fr.MaxSeq, fr.Unit = 1000000, "nt"
	_, err = fr.Read()
	if !errors.Is(err, ErrTooLarge) || err.Error() != `record "big": sequence longer than 1000000 nt (the reader's bound)` {
		t.Fatalf("bomb: %v", err)
	}
	if gen.read > 4<<20 {
		t.Errorf("read %d bytes before refusing", gen.read)
	}
	fr = NewFASTAReader(strings.NewReader(">a\nAC\n>b\nA\n>c\nA\n"))
	fr.MaxRecords = 2
	if _, err := fr.Read(); err != nil {
		t.Fatal(err)
	}
	if _, err := fr.Read(); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "line 5: more than 2 records") {
		t.Errorf("records: %v", err)
	}
	fr = NewFASTAReader(strings.NewReader(">" + strings.Repeat("n", 100) + "\nA\n"))
	fr.MaxHeader = 50
	if _, err := fr.Read(); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "header longer than 50 bytes") {
		t.Errorf("header: %v", err)
	}
	fr = NewFASTAReader(strings.NewReader("\x00\x01\x02 binary"))
	if _, err := fr.Read(); !errors.Is(err, ErrBinary) || err.Error() != "binary data, not a FASTA file" {
		t.Errorf("binary: %v", err)
	}
	fr = NewFASTAReader(strings.NewReader(strings.Repeat("garbage ", 100) + "\n"))
	if _, err := fr.Read(); err == nil || len(err.Error()) > 120 {
		t.Errorf("text before a header: %v", err)
	}
}

// biogoRecords reads data with biogo's reader as the package's readers
// did before FASTAReader.
func biogoRecords(data []byte) (out []string, err error) {
	fr := fasta.NewReader(bytes.NewReader(data), linear.NewSeq("", nil, alphabet.Protein))
	for {
		s, err := fr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		ls := s.(*linear.Seq)
		b := make([]byte, len(ls.Seq))
		for i, l := range ls.Seq {
			b[i] = byte(l)
		}
		out = append(out, fmt.Sprintf("%q %q %q", ls.Name(), ls.Description(), b))
	}
}

func fastaRecords(data []byte, cr bool) (out []string, err error) {
	fr := NewFASTAReader(bytes.NewReader(data))
	fr.CRLines = cr
	for {
		rec, err := fr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, fmt.Sprintf("%q %q %q", rec.Name, rec.Desc, rec.Seq))
	}
}

// FuzzFASTAReader: FASTAReader reads what biogo's reader reads, text that
// is not binary, the same records, and fails where it fails; with
// CRLines, as biogo reads the text with every CR made LF.
func FuzzFASTAReader(f *testing.F) {
	f.Add([]byte(">a desc\nMK V\n\nLA*\n>b\n  acde \n"), false)
	f.Add([]byte(">\n>x\n"), false)
	f.Add([]byte("MKV\n>a\n"), false)
	f.Add([]byte(">a\r\nAC\rGU\r>b c\tdd\r\n"), true)
	f.Add([]byte(">a\nA\u00a0C\u2028G\n> b\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, cr bool) {
		if IsBinary(data[:min(len(data), SniffSize)]) {
			return
		}
		in := data
		if cr {
			in = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
		}
		want, werr := biogoRecords(in)
		got, gerr := fastaRecords(data, cr)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("biogo error %v, FASTAReader error %v", werr, gerr)
		}
		if werr == nil && fmt.Sprint(want) != fmt.Sprint(got) {
			t.Fatalf("biogo read %v\nFASTAReader %v", want, got)
		}
	})
}

// TestFASTAReaderLongLines: lines longer than the read buffer (header and
// sequence, multi-byte white space across a buffer's end) read as biogo
// reads them.
func TestFASTAReaderLongLines(t *testing.T) {
	seq := strings.Repeat("AC ", 30000) + strings.Repeat("G\u00a0", 20000) + "\u2028T"
	for _, in := range []string{
		">" + strings.Repeat("n", 70000) + " d\n" + seq + "\n>b\n" + seq,
		">x\n" + strings.Repeat(" ", 65535) + "\u00a0A\n",
	} {
		for _, cr := range []bool{false, true} {
			want, werr := biogoRecords([]byte(in))
			got, gerr := fastaRecords([]byte(in), cr)
			if werr != nil || gerr != nil || fmt.Sprint(want) != fmt.Sprint(got) {
				t.Errorf("cr %v: records differ from biogo's (errors %v, %v)", cr, werr, gerr)
			}
		}
	}
}
