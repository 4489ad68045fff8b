package ssnet

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// scanGzipLines reads appended gzip members as one stream, numbers the
// lines from 1, reports a missing file as missing, returns fn's error as
// it is, stops quietly at errStopScan, and names WHAT and the path when
// the file is not gzip or its last member is cut short (after fn has had
// the lines before the cut).
func TestScanGzipLines(t *testing.T) {
	dir := t.TempDir()
	member := func(text string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(text))
		zw.Close()
		return b.Bytes()
	}
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	scan := func(path string, stopAt int, fail error) (lines []string, missing bool, err error) {
		missing, err = scanGzipLines(path, "test cache", 1<<16, func(ln int, line string) error {
			if ln != len(lines)+1 {
				t.Errorf("%s: line %d after %d lines", path, ln, len(lines))
			}
			lines = append(lines, line)
			if ln == stopAt {
				if fail != nil {
					return fail
				}
				return errStopScan
			}
			return nil
		})
		return lines, missing, err
	}

	two := write("two.gz", append(member("a\nb\n"), member("c\n")...))
	if lines, missing, err := scan(two, 0, nil); err != nil || missing || !slices.Equal(lines, []string{"a", "b", "c"}) {
		t.Errorf("two members: %q, missing %v, %v", lines, missing, err)
	}
	if lines, missing, err := scan(filepath.Join(dir, "none.gz"), 0, nil); err != nil || !missing || lines != nil {
		t.Errorf("a missing file: %q, missing %v, %v", lines, missing, err)
	}
	if lines, _, err := scan(two, 2, nil); err != nil || len(lines) != 2 {
		t.Errorf("stopped at line 2: %q, %v", lines, err)
	}
	bad := errors.New("bad line")
	if _, _, err := scan(two, 2, bad); err != bad {
		t.Errorf("fn's error: %v, want it as it is", err)
	}
	whole := append(member("a\nb\n"), member("c\nd\n")...)
	cut := write("cut.gz", whole[:len(whole)-10])
	lines, _, err := scan(cut, 0, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "ssnet: test cache "+cut+": ") || !slices.Equal(lines[:2], []string{"a", "b"}) {
		t.Errorf("a truncated member: %q, %v", lines, err)
	}
	plain := write("plain.gz", []byte("a\nb\n"))
	if _, _, err := scan(plain, 0, nil); err == nil || !strings.HasPrefix(err.Error(), "ssnet: test cache "+plain+": ") {
		t.Errorf("not gzip: %v", err)
	}
}
