package fileio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// FASTARecord is one record of a FASTA stream, as biogo's FASTA reader
// (io/seqio/fasta) reads it: Name is the header after '>' up to the first
// space or tab, Desc what follows that, Seq the letters of the record's
// lines with all white space removed.
type FASTARecord struct {
	Name, Desc string
	Seq        []byte
	Line       int // 1-based line of the header
	Index      int // 1-based record number
}

// Label names the record in an error message: record "NAME" or, for a
// record without a name, record N.
func (r *FASTARecord) Label() string {
	if r.Name == "" {
		return fmt.Sprintf("record %d", r.Index)
	}
	return "record " + Quote(r.Name)
}

// FASTAReader reads FASTA records one at a time with the reading rules of
// biogo's FASTA reader, streaming and within bounds: a record's sequence
// may hold MaxSeq letters, a header line MaxHeader bytes, a stream
// MaxRecords records and MaxTotal letters in all (0: no bound). Input
// beyond a bound is refused, with an error wrapping ErrTooLarge, as soon
// as it is read: a record is never held beyond its bound. The first
// block of the stream is checked for binary data (IsBinary; ErrBinary).
//
// The rules: lines end in LF (and, with CRLines, CR too); each is trimmed
// of white space and blank ones are skipped; a line starting with '>' is
// a header, any other line holds sequence letters (white space inside
// removed) of the record above it, an error before the first header.
type FASTAReader struct {
	MaxSeq, MaxHeader, MaxRecords int
	MaxTotal                      int64
	Unit                          string // of the sequence, for messages ("residues", "nt"); "letters" if ""
	CRLines                       bool

	r       io.Reader
	br      *bufio.Reader
	line    int
	records int
	total   int64
	next    *FASTARecord // header read, sequence to come
	err     error
}

// NewFASTAReader returns a reader of the uncompressed FASTA stream r.
func NewFASTAReader(r io.Reader) *FASTAReader { return &FASTAReader{r: r} }

// Line is the number of lines read so far.
func (f *FASTAReader) Line() int { return f.line }

func (f *FASTAReader) unit() string {
	if f.Unit == "" {
		return "letters"
	}
	return f.Unit
}

// Read returns the next record, or io.EOF after the last. Errors do not
// name the stream (the caller does); they name the record and line.
func (f *FASTAReader) Read() (*FASTARecord, error) {
	if f.err != nil {
		return nil, f.err
	}
	rec, err := f.read()
	if err != nil {
		f.err = err
	}
	return rec, err
}

// ReadAll reads the records to the end of the stream: all of them and a
// nil error, or those before the first error and that error (Read's).
func (f *FASTAReader) ReadAll() ([]*FASTARecord, error) {
	var out []*FASTARecord
	for {
		rec, err := f.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

func (f *FASTAReader) read() (*FASTARecord, error) {
	if f.br == nil {
		r, err := Sniff(f.r)
		if err != nil {
			if err == ErrBinary {
				return nil, fmt.Errorf("%w, not a FASTA file", ErrBinary)
			}
			return nil, err
		}
		f.br = bufio.NewReaderSize(r, 1<<16)
	}
	for {
		rec := f.next
		kind, header, err := f.line1(rec)
		switch {
		case err == io.EOF:
			f.next = nil
			if rec == nil {
				return nil, io.EOF
			}
			return rec, nil
		case err != nil:
			return nil, err
		case kind == '>':
			h := &FASTARecord{Line: f.line, Index: f.records + 1}
			if f.MaxRecords > 0 && h.Index > f.MaxRecords {
				return nil, TooLarge("line %d: more than %d records (the reader's bound)", f.line, f.MaxRecords)
			}
			f.records++
			h.Name, h.Desc = splitHeader(header)
			f.next = h
			if rec != nil {
				return rec, nil
			}
		}
	}
}

// splitHeader splits a trimmed header line after its '>' as biogo does.
func splitHeader(h []byte) (name, desc string) {
	if k := bytes.IndexAny(h, " \t"); k >= 0 {
		return string(h[:k]), string(h[k+1:])
	}
	return string(h), ""
}

// line1 reads one line. A header line is returned (trimmed, without its
// '>') with kind '>'; a sequence line's letters are appended to rec
// as they are read, kind 's'; kind 0 for a blank line. io.EOF at the end
// of the stream.
func (f *FASTAReader) line1(rec *FASTARecord) (kind byte, header []byte, err error) {
	var carry []byte // an incomplete UTF-8 sequence at a fragment's end
	started := false
	for {
		frag, rerr := f.readFrag()
		if rerr != nil && rerr != bufio.ErrBufferFull && rerr != io.EOF {
			return 0, nil, rerr
		}
		if !started && len(frag) == 0 && rerr == io.EOF {
			return 0, nil, io.EOF
		}
		if !started {
			started = true
			f.line++
		}
		end := rerr != bufio.ErrBufferFull // the line ends with this fragment
		if kind == 0 {
			t := trimLeftSpace(frag)
			if len(t) > 0 {
				kind = 's'
				if t[0] == '>' {
					kind = '>'
				}
				frag = t
				if kind == 's' && rec == nil {
					return 0, nil, fmt.Errorf("line %d: badly formed line %s: sequence before the first '>' header", f.line, Quote(bytes.TrimSpace(frag)))
				}
			}
		}
		switch kind {
		case '>':
			header = append(header, frag...)
			if f.MaxHeader > 0 && len(header) > f.MaxHeader+1 {
				return 0, nil, TooLarge("line %d: header longer than %d bytes (the reader's bound)", f.line, f.MaxHeader)
			}
		case 's':
			buf := append(carry, frag...)
			carry = nil
			if !end {
				if k := incompleteTail(buf); k < len(buf) {
					carry = append([]byte(nil), buf[k:]...)
					buf = buf[:k]
				}
			}
			n := len(rec.Seq)
			rec.Seq = appendNonSpace(rec.Seq, buf)
			f.total += int64(len(rec.Seq) - n)
			if f.MaxSeq > 0 && len(rec.Seq) > f.MaxSeq {
				return 0, nil, TooLarge("%s: sequence longer than %d %s (the reader's bound)", rec.Label(), f.MaxSeq, f.unit())
			}
			if f.MaxTotal > 0 && f.total > f.MaxTotal {
				return 0, nil, TooLarge("%s: more than %d %s in all records (the reader's bound)", rec.Label(), f.MaxTotal, f.unit())
			}
		}
		if end {
			if kind == '>' {
				header = bytes.TrimSpace(header)[1:]
			}
			return kind, header, nil
		}
	}
}

// readFrag returns the next piece of the current line: up to and without
// its line end, with bufio.ErrBufferFull when the line goes on.
func (f *FASTAReader) readFrag() ([]byte, error) {
	if !f.CRLines {
		frag, err := f.br.ReadSlice('\n')
		if err == nil {
			frag = frag[:len(frag)-1]
		}
		return frag, err
	}
	// CR, LF and CRLF end lines.
	buf, err := f.br.Peek(1)
	if len(buf) == 0 {
		return nil, err
	}
	n := f.br.Buffered()
	buf, _ = f.br.Peek(n)
	if i := bytes.IndexAny(buf, "\r\n"); i >= 0 {
		frag := append([]byte(nil), buf[:i]...)
		f.br.Discard(i + 1)
		if buf[i] == '\r' {
			if next, _ := f.br.Peek(1); len(next) == 1 && next[0] == '\n' {
				f.br.Discard(1)
			}
		}
		return frag, nil
	}
	frag := append([]byte(nil), buf...)
	f.br.Discard(n)
	if _, err := f.br.Peek(1); err == io.EOF {
		return frag, io.EOF
	} else if err != nil {
		return frag, err
	}
	return frag, bufio.ErrBufferFull
}

// incompleteTail returns the index where an incomplete UTF-8 sequence
// ends b, or len(b).
func incompleteTail(b []byte) int {
	for k := len(b) - 1; k >= 0 && k >= len(b)-utf8.UTFMax+1; k-- {
		if utf8.RuneStart(b[k]) {
			if !utf8.FullRune(b[k:]) {
				return k
			}
			break
		}
	}
	return len(b)
}

func trimLeftSpace(b []byte) []byte { return bytes.TrimLeftFunc(b, unicode.IsSpace) }

// appendNonSpace appends b without its white-space runes (as
// bytes.Fields sees them) to dst.
func appendNonSpace(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if !unicode.IsSpace(r) {
			dst = append(dst, b[i:i+n]...)
		}
		i += n
	}
	return dst
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
