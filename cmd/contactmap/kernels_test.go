package main

import (
	"os"
	"testing"

	"github.com/contactmap/contactmap/scnn/blasenv"
)

// TestMain applies CONTACTMAP_SGEMM as main does, so the command's tests
// run on the kernels it names (CONTACTMAP_SGEMM=go go test ./cmd/contactmap).
func TestMain(m *testing.M) {
	blasenv.SelectKernels(os.Stderr)
	os.Exit(m.Run())
}
