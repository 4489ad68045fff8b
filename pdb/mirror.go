package pdb

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// Mirror is a local copy of PDB entries in the wwPDB "divided" layout
// (Dir/<middle two characters>/pdbXXXX.ent.gz or XXXX.cif.gz) or flat in
// Dir.
type Mirror struct{ Dir string }

// Candidates lists the paths Find tries for a 4-character PDB code, in
// order: divided layout (PDB format, then mmCIF), then flat.
func (m Mirror) Candidates(code string) []string {
	lc, uc := strings.ToLower(code), strings.ToUpper(code)
	mid := ""
	if len(lc) == 4 {
		mid = lc[1:3]
	}
	var out []string
	for _, dir := range []string{filepath.Join(m.Dir, mid), m.Dir} {
		for _, name := range []string{
			"pdb" + lc + ".ent.gz", "pdb" + lc + ".ent", lc + ".pdb.gz", lc + ".pdb", uc + ".pdb.gz", uc + ".pdb",
			lc + ".cif.gz", lc + ".cif", uc + ".cif.gz", uc + ".cif",
		} {
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out
}

// Find returns the path of the entry with PDB code code.
func (m Mirror) Find(code string) (string, error) {
	if len(code) != 4 {
		return "", fmt.Errorf("pdb: %q is not a 4-character PDB code: %w", code, ErrNotFound)
	}
	for _, p := range m.Candidates(code) {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("pdb: %s not in mirror %s (tried %s and flat): %w", strings.ToUpper(code), m.Dir, filepath.Join(m.Dir, strings.ToLower(code)[1:3]), ErrNotFound)
}

// Read finds and reads an entry.
func (m Mirror) Read(code string) (*Structure, string, error) {
	p, err := m.Find(code)
	if err != nil {
		return nil, "", err
	}
	s, err := ReadFile(p)
	return s, p, err
}

// ReadFile reads a PDB-format or mmCIF file, plain or compressed; the
// format is told by the content (an mmCIF file starts with data_ after
// comments).
func ReadFile(path string) (*Structure, error) {
	f, err := fileio.Open(path)
	if err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a PDB-format or mmCIF stream (uncompressed). Binary data
// (fileio.IsBinary) is refused: the error wraps fileio.ErrBinary.
func Read(r io.Reader, path string) (*Structure, error) {
	head := make([]byte, fileio.SniffSize)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, &ParseError{Path: path, Err: err}
	}
	head = head[:n]
	if fileio.IsBinary(head) {
		return nil, binaryError(path)
	}
	full := io.MultiReader(bytes.NewReader(head), r)
	if isCIF(head) {
		return ReadMMCIF(full, path)
	}
	return ReadPDB(full, path)
}

func isCIF(head []byte) bool {
	for _, line := range bytes.Split(head, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		return bytes.HasPrefix(bytes.ToLower(t), []byte("data_"))
	}
	return false
}

func binaryError(path string) error {
	return &ParseError{Path: path, Err: fmt.Errorf("%w, not a PDB or mmCIF file", fileio.ErrBinary)}
}

// sniff refuses binary data (fileio.Sniff).
func sniff(r io.Reader, path string) (io.Reader, error) {
	r, err := fileio.Sniff(r)
	if errors.Is(err, fileio.ErrBinary) {
		return nil, binaryError(path)
	}
	if err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	return r, nil
}
