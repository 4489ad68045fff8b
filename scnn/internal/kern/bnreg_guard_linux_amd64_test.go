//go:build amd64 && linux && !purego

package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// guardedF32 returns a slice of n float32 that ends where an
// inaccessible page begins, so a kernel that reads or writes one element
// past it faults.
func guardedF32(t *testing.T, n int) []float32 {
	b := guardedBytes(t, 4*n)
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func guardedF64(t *testing.T, n int) []float64 {
	b := guardedBytes(t, 8*n)
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func guardedBytes(t *testing.T, n int) []byte {
	t.Helper()
	page := syscall.Getpagesize()
	size := (n + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, size+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[size:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	return mem[size-n : size]
}

// The register-resident sums (bnreg_amd64.s; PrefixSumsF64's too) read and write nothing past
// their slices, every slice ending at an inaccessible page, and give the
// portable loops' bits, for 1-32 channels (one to four chunks, full and
// partial), 1-5 pixels, zero weights among them and all weights zero.
func TestBNSumsInRegistersBounds(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(29, 29))
	fill32 := func(v []float32) []float32 {
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	fill64 := func(v []float64) []float64 {
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	same := func(t *testing.T, name string, got, want []float64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s[%d] = %v, want %v", name, i, got[i], want[i])
			}
		}
	}
	for c := 1; c <= regSums; c++ {
		for _, n := range []int{1, 2, 5} {
			for _, zeros := range []string{"some", "all"} {
				t.Run(fmt.Sprintf("c%d/n%d/%s", c, n, zeros), func(t *testing.T) {
					w := fill32(guardedF32(t, n))
					if zeros == "all" {
						clear(w)
					} else if n > 1 {
						w[1] = 0
					}
					x, dy := fill32(guardedF32(t, n*c)), fill32(guardedF32(t, n*c))
					mean, inv := fill32(guardedF32(t, c)), fill32(guardedF32(t, c))
					mean64 := fill64(guardedF64(t, c))
					nch, masks := regChunks(c)

					acc := fill64(guardedF64(t, c))
					want := append([]float64(nil), acc...)
					bnVarSumsRegAVX512(&acc[0], &mean64[0], &w[0], &x[0], n, c, nch, masks)
					bnVarSumsGo(want, mean64, w, x, c)
					same(t, "var", acc, want)

					sdy, sdyxh := fill64(guardedF64(t, c)), fill64(guardedF64(t, c))
					w1, w2 := append([]float64(nil), sdy...), append([]float64(nil), sdyxh...)
					bnBackSumsRegAVX512(&sdy[0], &sdyxh[0], &w[0], &dy[0], &x[0], &mean[0], &inv[0], n, c, nch, masks)
					bnBackSumsGo(w1, w2, w, dy, x, mean, inv, c)
					same(t, "sdy", sdy, w1)
					same(t, "sdyxh", sdyxh, w2)

					r := fill64(guardedF64(t, c))
					wr := append([]float64(nil), r...)
					axpyRowsF64RegAVX512(&r[0], &w[0], n, &x[0], c, nch, masks)
					axpyRowsF64Go(wr, w, x, c)
					same(t, "axpy", r, wr)

					pre := fill64(guardedF64(t, (n+1)*c))
					wp := append([]float64(nil), pre...)
					prefixSumsF64RegAVX512(&pre[0], &x[0], n, c, nch, masks)
					prefixSumsF64Go(wp, x, n, c)
					same(t, "prefix", pre, wp)
				})
			}
		}
	}
}

// GemvRowsF32's and GerF32's AVX-512 kernels read and write nothing past
// their slices, each ending at an inaccessible page, for lengths around
// the vector width.
func TestGemvRowsAndGerGuarded(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(33, 34))
	for _, n := range []int{1, 7, 16, 17, 33} {
		for _, m := range []int{1, 3} {
			ldw := n + 2
			y, a, b := guardedF32(t, n), guardedF32(t, m), guardedF32(t, n)
			w := guardedF32(t, (m-1)*ldw+n)
			for _, v := range [][]float32{y, a, b, w} {
				copy(v, randSlice(len(v), rng))
			}
			want := append([]float32(nil), y...)
			gemvRowsGo(want, a, w, ldw, false)
			gemvRowsAVX512Go(y, a, w, ldw, false)
			wantW := append([]float32(nil), w...)
			gerGo(wantW, ldw, a, b)
			gerAVX512Go(w, ldw, a, b)
			for j := range want {
				if math.Float32bits(y[j]) != math.Float32bits(want[j]) {
					t.Fatalf("n %d m %d: gemv y[%d] = %v, want %v", n, m, j, y[j], want[j])
				}
			}
			for i := range wantW {
				if math.Float32bits(w[i]) != math.Float32bits(wantW[i]) {
					t.Fatalf("n %d m %d: ger w[%d] = %v, want %v", n, m, i, w[i], wantW[i])
				}
			}
		}
	}
}

// mirrorColumn's AVX-512 kernel reads and writes nothing past its
// slices, src ending at the last pixel it reads and dst at the last it
// writes, each at an inaccessible page, and copies the loop's values.
func TestMirrorColumnGuarded(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(35, 36))
	for _, c := range []int{1, 4, 8, 13, 16} {
		for _, w := range []int{2, 9, 30} {
			for _, p := range []int{1, w / 2, w - 1} {
				if p < 1 {
					continue
				}
				src := guardedF32(t, (Tri(w, p-1, p)+1)*c)
				copy(src, randSlice(len(src), rng))
				dst := guardedF32(t, p*c)
				mirrorColumnAVX512Go(dst, src, p, w, c)
				for q := 0; q < p; q++ {
					for f := 0; f < c; f++ {
						if got, want := dst[q*c+f], src[Tri(w, q, p)*c+f]; got != want {
							t.Fatalf("c %d w %d p %d: dst[%d] = %v, want %v", c, w, p, q*c+f, got, want)
						}
					}
				}
			}
		}
	}
}

// foldRows' AVX-512 kernel reads and writes nothing past its slices (x,
// zero and dst each ending at an inaccessible page; places ending at x's
// last float) and gives the portable loop's bits, for 1-41 channels (the
// four-pixel paths of 4 and 8 and the one-pixel path) and runs of 1-13
// pixels.
func TestFoldRowsGuarded(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(37, 38))
	for c := 1; c <= 41; c++ {
		for m := 1; m <= 13; m++ {
			x := guardedF32(t, 3*m*c+5)
			copy(x, randSlice(len(x), rng))
			signedZeros(x, rng)
			zero := guardedF32(t, max(c, 32))
			clear(zero)
			ops := randomFoldOps(rng, c, len(x)-m*c)
			nd := len(ops) * c
			got := guardedF32(t, m*nd)
			copy(got, randSlice(len(got), rng))
			want := append([]float32(nil), got...)
			foldRowsGo(want, nd, x, zero, ops, m, c)
			foldRowsAVX512Go(got, nd, x, zero, ops, m, c)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("c %d m %d: dst[%d] = %v, want %v", c, m, i, got[i], want[i])
				}
			}
		}
	}
}
