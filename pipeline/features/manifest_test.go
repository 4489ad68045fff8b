package features

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadManifest round-trips WriteManifest and refuses, naming the file and
// line, what no run writes: lengths below 1, resolved counts above the
// length, empty ids, feature files outside the directory, no header.
func TestReadManifestChecks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.tsv")
	es := []ManifestEntry{{ID: "1ABC_A", PDB: "1ABC", Chain: "A", Length: 57, Resolved: 55, Split: "train", Mode: MSASSMode, SHA256: "ab", File: FileName("1ABC_A")}}
	if err := WriteManifest(path, es); err != nil {
		t.Fatal(err)
	}
	back, err := ReadManifest(path)
	if err != nil || len(back) != 1 || back[0] != es[0] {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	head := strings.Join(manifestHeader, "\t") + "\n"
	for _, c := range []struct{ data, want string }{
		{"", "empty, not a manifest"},
		{head + "x\tx\tx\t0\t0\ttrain\tseq\t\tx.feat.zst\n", "line 2: length 0, resolved 0"},
		{head + "x\tx\tx\t5\t-1\ttrain\tseq\t\tx.feat.zst\n", "line 2: length 5, resolved -1"},
		{head + "x\tx\tx\t5\t6\ttrain\tseq\t\tx.feat.zst\n", "line 2: length 5, resolved 6"},
		{head + "\tx\tx\t5\t5\ttrain\tseq\t\tx.feat.zst\n", "line 2: empty id"},
		{head + "x\tx\tx\t5\t5\ttrain\tseq\t\t../../etc/passwd\n", `feature file "../../etc/passwd"`},
		{head + "x\tx\tx\t5\t5\ttrain\tseq\t\t\n", `feature file ""`},
	} {
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadManifest(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error naming the file and saying %q", c.data, err, c.want)
		}
	}
}
