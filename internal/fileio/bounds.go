package fileio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// ErrTooLarge is wrapped by the errors of readers that refuse input beyond
// one of their bounds (a line, a sequence, a record count, a file's size):
// the bound is named in the message, "... (the reader's bound)".
var ErrTooLarge = errors.New("input beyond the reader's bound")

// ErrBinary is wrapped by the errors of readers given binary data (see
// IsBinary) where they read text.
var ErrBinary = errors.New("binary data")

// SniffSize is how much of an input IsBinary looks at: the first block.
const SniffSize = 4096

type tooLarge struct{ msg string }

func (e *tooLarge) Error() string { return e.msg }
func (e *tooLarge) Unwrap() error { return ErrTooLarge }

// TooLarge returns an error with the message given that wraps ErrTooLarge.
// By convention the message ends in "(the reader's bound)".
func TooLarge(format string, args ...any) error {
	return &tooLarge{fmt.Sprintf(format, args...)}
}

// IsBinary reports whether head, the first block (SniffSize bytes) of an
// uncompressed input, is binary data rather than text: it holds a NUL
// byte, or more than one byte in ten is a control character other than
// white space (tab, LF, VT, FF, CR) or is not part of valid UTF-8. An
// incomplete UTF-8 sequence at the end of head (cut by the block's end)
// is not counted.
func IsBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	bad := 0
	for i := 0; i < len(head); {
		c := head[i]
		if c < utf8.RuneSelf {
			if c < ' ' && (c < '\t' || c > '\r') || c == 0x7f {
				bad++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 {
			if len(head)-i < utf8.UTFMax && !utf8.FullRune(head[i:]) {
				break // cut at the block's end
			}
			bad++
		}
		i += n
	}
	return 10*bad > len(head)
}

// Sniff reads the first block of r and reports ErrBinary when it is
// binary data (IsBinary). The returned reader reads all of r from its
// start.
func Sniff(r io.Reader) (io.Reader, error) {
	head := make([]byte, SniffSize)
	n, err := io.ReadFull(r, head)
	head = head[:n]
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	if IsBinary(head) {
		return nil, ErrBinary
	}
	if err != nil { // all of r is in head
		return bytes.NewReader(head), nil
	}
	return io.MultiReader(bytes.NewReader(head), r), nil
}

// Quote returns s for an error message: quoted with %q, and cut to its
// first 40 bytes (marked "...") when longer, so that a message never
// echoes much of a bad input.
func Quote[T ~string | ~[]byte](s T) string {
	const max = 40
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}

// NewScanner returns a line scanner of r (lines end in LF; a CR before it
// is kept, as bufio.ScanLines drops it) whose lines may hold up to
// maxLine bytes; ScanErr names that bound when a line is longer.
func NewScanner(r io.Reader, maxLine int) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, min(4096, maxLine+1)), maxLine+1)
	return sc
}

// ScanErr returns sc's error, bufio.ErrTooLong as an error wrapping
// ErrTooLarge that names line (the 1-based number of the long line) and
// the bound maxLine; nil when sc read to the end.
func ScanErr(sc *bufio.Scanner, line, maxLine int) error {
	err := sc.Err()
	if errors.Is(err, bufio.ErrTooLong) {
		return TooLarge("line %d longer than %d bytes (the reader's bound)", line, maxLine)
	}
	return err
}

// ReadText reads all of r, a text input of at most maxBytes bytes whose
// lines hold at most maxLine bytes each: more, or binary data in the first
// block (IsBinary, then the error wraps ErrBinary), is an error, returned
// before more than maxLine+SniffSize bytes beyond the bound are read. The
// error does not name the input: the caller does.
func ReadText(r io.Reader, maxBytes int64, maxLine int) ([]byte, error) {
	r, err := Sniff(r)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(r, 1<<16)
	var data []byte
	line := 0
	for {
		start := len(data)
		line++
		for {
			frag, err := br.ReadSlice('\n')
			data = append(data, frag...)
			if int64(len(data)) > maxBytes {
				return nil, TooLarge("more than %d bytes (the reader's bound)", maxBytes)
			}
			n := len(data) - start
			if n > 0 && data[len(data)-1] == '\n' {
				n--
			}
			if n > maxLine {
				return nil, TooLarge("line %d longer than %d bytes (the reader's bound)", line, maxLine)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				return data, nil
			}
			if err != nil {
				return nil, err
			}
			break
		}
	}
}
