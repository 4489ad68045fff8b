package scnn

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs the package's tests with the sgemm kernels named by
// CONTACTMAP_SGEMM when it is set ("avx512", "avx2" or "go"), as the
// commands do: CONTACTMAP_SGEMM=avx2 go test ./scnn tests the layers on
// the AVX2 kernels of an AVX-512 machine.
func TestMain(m *testing.M) {
	if name := os.Getenv("CONTACTMAP_SGEMM"); name != "" {
		if err := SetKernels(name); err != nil {
			fmt.Fprintf(os.Stderr, "CONTACTMAP_SGEMM: %v\n", err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

// SetKernels accepts every set KernelSets lists and "" (the default, the
// first listed), and refuses an unknown name without changing the choice.
func TestSetKernels(t *testing.T) {
	old := SgemmKernels()
	defer SetKernels(old)
	sets := KernelSets()
	if len(sets) == 0 || sets[len(sets)-1] != "go" {
		t.Fatalf("KernelSets() = %v, want the portable go kernels last", sets)
	}
	for _, name := range sets {
		if err := SetKernels(name); err != nil {
			t.Fatal(err)
		}
		if BLASBackend() == "go" && SgemmKernels() != name {
			t.Errorf("SetKernels(%q): SgemmKernels() = %q", name, SgemmKernels())
		}
	}
	if err := SetKernels(""); err != nil {
		t.Fatal(err)
	}
	if BLASBackend() == "go" && SgemmKernels() != sets[0] {
		t.Errorf("SetKernels(\"\"): SgemmKernels() = %q, want %q", SgemmKernels(), sets[0])
	}
	before := SgemmKernels()
	if err := SetKernels("sse9"); err == nil {
		t.Error("SetKernels(sse9) succeeded")
	}
	if SgemmKernels() != before {
		t.Errorf("a refused SetKernels changed the kernels to %q", SgemmKernels())
	}
}
