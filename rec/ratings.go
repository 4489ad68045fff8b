package rec

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Rating is one interaction of a user with an item, with the file's own
// (raw) ids.
type Rating struct {
	User, Item int64
	Score      float64 // the rating; every rating counts as an interaction
	Time       int64   // Unix seconds
}

// Sentinel errors wrapped by ParseError.
var (
	ErrFieldCount = errors.New("wrong number of fields")
	ErrNumber     = errors.New("bad number")
	ErrEmpty      = errors.New("no ratings")
)

// ParseError is a bad line of a ratings file.
type ParseError struct {
	File  string
	Line  int // 1-based
	Field int // 1-based; 0 for the whole line
	Err   error
}

func (e *ParseError) Error() string {
	if e.Field > 0 {
		return fmt.Sprintf("rec: %s line %d field %d: %v", e.File, e.Line, e.Field, e.Err)
	}
	return fmt.Sprintf("rec: %s line %d: %v", e.File, e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// ReadRatings reads ratings, one per line: "user item rating time"
// separated by tabs or spaces (MovieLens 100K's u.data) or by "::"
// (MovieLens 1M's ratings.dat). Ids are integers, the rating a number,
// the time an integer; a NaN or infinite rating is refused. Blank lines
// are skipped. name labels errors (a *ParseError names the line and
// field).
func ReadRatings(r io.Reader, name string) ([]Rating, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var out []Rating
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var f []string
		if strings.Contains(text, "::") {
			f = strings.Split(text, "::")
		} else {
			f = strings.Fields(text)
		}
		if len(f) != 4 {
			return nil, &ParseError{name, line, 0, fmt.Errorf("%w: %d, want user, item, rating, time", ErrFieldCount, len(f))}
		}
		var rt Rating
		var err error
		ints := []*int64{&rt.User, &rt.Item, nil, &rt.Time}
		for k, dst := range ints {
			if dst == nil {
				continue
			}
			if *dst, err = strconv.ParseInt(strings.TrimSpace(f[k]), 10, 64); err != nil {
				return nil, &ParseError{name, line, k + 1, fmt.Errorf("%w: %q", ErrNumber, f[k])}
			}
		}
		if rt.Score, err = strconv.ParseFloat(strings.TrimSpace(f[2]), 64); err != nil || math.IsNaN(rt.Score) || math.IsInf(rt.Score, 0) {
			return nil, &ParseError{name, line, 3, fmt.Errorf("%w: %q (want a finite rating)", ErrNumber, f[2])}
		}
		out = append(out, rt)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("rec: %s line %d: %w", name, line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("rec: %s: %w", name, ErrEmpty)
	}
	return out, nil
}

// ReadRatingsFile reads a ratings file (see ReadRatings).
func ReadRatingsFile(path string) ([]Rating, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rec: %w", err)
	}
	defer f.Close()
	return ReadRatings(f, path)
}

// ReadTitles reads MovieLens item names: u.item ("id|title|...", Latin-1)
// or movies.dat ("id::title::genres"). Lines it cannot read are an error.
func ReadTitles(r io.Reader, name string) (map[int64]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	out := map[int64]string{}
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			continue
		}
		sep := "|"
		if strings.Contains(text, "::") {
			sep = "::"
		}
		f := strings.SplitN(text, sep, 3)
		if len(f) < 2 {
			return nil, &ParseError{name, line, 0, fmt.Errorf("%w: want id%stitle", ErrFieldCount, sep)}
		}
		id, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, &ParseError{name, line, 1, fmt.Errorf("%w: %q", ErrNumber, f[0])}
		}
		out[id] = latin1(f[1])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("rec: %s line %d: %w", name, line+1, err)
	}
	return out, nil
}

// latin1 decodes ISO-8859-1 (u.item's encoding) unless s is valid UTF-8.
func latin1(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}
