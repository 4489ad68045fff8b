package cpuprofile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A profile is written where a path is given, nothing where none is, and
// a path that cannot be created is said on errw.
func TestStart(t *testing.T) {
	var errw bytes.Buffer
	Start("", "x", &errw)()
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	Start(path, "x", &errw)()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("profile %s: %v", path, err)
	}
	Start(filepath.Join(t.TempDir(), "no", "such", "dir"), "CONTACTMAP_CPUPROFILE", &errw)()
	if !strings.HasPrefix(errw.String(), "CONTACTMAP_CPUPROFILE: ") || strings.Count(errw.String(), "\n") != 1 {
		t.Errorf("errw %q", errw.String())
	}
}
