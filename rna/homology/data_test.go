package homology

import (
	"os"
	"path/filepath"
)

func openData(name string) (*os.File, error) {
	return os.Open(filepath.Join("..", "..", "data", "rna", name))
}
