package main

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// TestRecipeParams trains the four networks of the shipped recipes (the
// protein default CNN and SCNN, batch 4 of 40 residues; the RNA recipe's
// CNN and SCNN, batch 4 of 48 nt) three steps from their seed-1
// initialisation on the bench's synthetic batches, and logs a hash of
// each one's parameters: two commits whose hashes agree train these
// networks bit for bit alike. It runs only with CONTACTMAP_PARAMS_DUMP
// set to a directory, where it also writes every parameter (float32,
// little-endian, <name>.f32); with CONTACTMAP_PARAMS_AGAINST set to
// another commit's directory it logs, per network, how many parameters
// differ from that one's and by how much at most:
//
//	git worktree add --detach /tmp/old REV
//	(cd /tmp/old && CONTACTMAP_PARAMS_DUMP=/tmp/p-old go test ./bench -run TestRecipeParams -v)
//	CONTACTMAP_PARAMS_DUMP=/tmp/p-new CONTACTMAP_PARAMS_AGAINST=/tmp/p-old go test ./bench -run TestRecipeParams -v
//
// (A commit from before this test needs the file copied in.)
func TestRecipeParams(t *testing.T) {
	dir := os.Getenv("CONTACTMAP_PARAMS_DUMP")
	if dir == "" {
		t.Skip("CONTACTMAP_PARAMS_DUMP not set")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct {
		name string
		t    task
	}{
		{"protein-scnn", task{Kind: "train", Model: "scnn", Config: "default", B: 4, L: 40}},
		{"protein-cnn", task{Kind: "train", Model: "cnn", Config: "default", B: 4, L: 40}},
		{"rna-scnn", task{Kind: "rna-train", Model: "scnn", Config: rnaProtocol, B: 4, L: 48}},
		{"rna-cnn", task{Kind: "rna-train", Model: "cnn", Config: rnaProtocol, B: 4, L: 48}},
	} {
		rng := rand.New(rand.NewPCG(1, 2))
		var run func() error
		var params []*scnn.Param
		if n.t.Kind == "train" {
			r, m, err := modelTask(n.t, rng)
			if err != nil {
				t.Fatal(err)
			}
			run, params = r, m.Params()
		} else {
			r, net, err := rnaTask(n.t, rng)
			if err != nil {
				t.Fatal(err)
			}
			run, params = r, net.Params()
		}
		for range 3 {
			if err := run(); err != nil {
				t.Fatalf("%s: %v", n.name, err)
			}
		}
		var vs []float32
		for _, p := range params {
			vs = append(vs, p.Value...)
		}
		h := fnv.New64a()
		if err := binary.Write(h, binary.LittleEndian, vs); err != nil {
			t.Fatal(err)
		}
		msg := fmt.Sprintf("%s: %d parameters, hash %016x", n.name, len(vs), h.Sum64())
		raw, err := binary.Append(nil, binary.LittleEndian, vs)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n.name+".f32"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		if against := os.Getenv("CONTACTMAP_PARAMS_AGAINST"); against != "" {
			old, err := os.ReadFile(filepath.Join(against, n.name+".f32"))
			if err != nil {
				t.Fatal(err)
			}
			if len(old) != len(raw) {
				t.Fatalf("%s: %d parameters against %d", n.name, len(vs), len(old)/4)
			}
			differ, most := 0, 0.0
			for i, v := range vs {
				o := math.Float32frombits(binary.LittleEndian.Uint32(old[4*i:]))
				if math.Float32bits(o) != math.Float32bits(v) {
					differ++
					most = max(most, math.Abs(float64(v)-float64(o)))
				}
			}
			msg += fmt.Sprintf("; against %s: %d differ, by at most %.3g", against, differ, most)
		}
		t.Log(msg)
	}
}
