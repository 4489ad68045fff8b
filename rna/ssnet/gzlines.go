package ssnet

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
)

// errStopScan, returned by scanGzipLines' fn, ends the scan early
// without an error.
var errStopScan = errors.New("stop scanning")

// scanGzipLines calls fn on each line of the gzip-compressed file at
// path (its gzip members read as one stream), numbered from 1, lines of
// up to maxLine bytes. It stops at the first error fn returns and
// returns that error as it is, or nil for errStopScan. missing is true
// (and err nil) when the file does not exist. Its own errors name what
// the file is: "ssnet: WHAT: ERR" when the file cannot be opened,
// "ssnet: WHAT PATH: ERR" when it is not gzip or cannot be read to its
// end (a truncated member included, after fn has had the lines before
// the cut).
func scanGzipLines(path, what string, maxLine int, fn func(ln int, line string) error) (missing bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("ssnet: %s: %w", what, err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return false, fmt.Errorf("ssnet: %s %s: %w", what, path, err)
	}
	defer zr.Close()
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<16), maxLine)
	for ln := 1; sc.Scan(); ln++ {
		if err := fn(ln, sc.Text()); err == errStopScan {
			return false, nil
		} else if err != nil {
			return false, err
		}
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("ssnet: %s %s: %w", what, path, err)
	}
	return false, nil
}
