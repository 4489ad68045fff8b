// Package resultfile writes the experiments' result files (tables, JSON,
// Markdown reports). A file is rendered whole in memory before it is
// written, so a render that fails leaves the previous file as it was.
package resultfile

import (
	"bytes"
	"io"
	"os"
)

// Write renders a file with render and writes it to path (mode 0644),
// replacing what was there only once the render has succeeded.
func Write(path string, render func(w io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
