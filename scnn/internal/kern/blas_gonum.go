//go:build !cgo || purego

package kern

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

const backend = "gonum"

// sgemmImpl is gonum's pure-Go BLAS.
func sgemmImpl() blas.Float32Level3 { return gonum.Implementation{} }

// BLASCore is empty: there is no OpenBLAS in this build.
func BLASCore() string { return "" }
