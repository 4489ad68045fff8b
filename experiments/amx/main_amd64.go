//go:build amd64

// Command amx probes Intel AMX from a Go program (issue 29, item 3:
// bfloat16): it asks Linux for the tile state (arch_prctl
// ARCH_REQ_XCOMP_PERM), checks one tile product against its sum, runs
// tile products on 8 goroutines for a second while the garbage
// collector runs (preemption signals land inside tile code), and times
// TDPBF16PS on one core beside the AVX-512 FMA peak (scnn.FMAPeak, one
// goroutine). See README.md.
package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/contactmap/contactmap/scnn"
	"golang.org/x/sys/cpu"
)

func tileDot(cfg *[64]byte, a, b *uint16, c *float32)

func tileLoop(cfg *[64]byte, a, b *uint16, c *float32, n int)

// tileConfig is the 64-byte tile configuration of palette 1 with tiles
// 0-3 of 16 rows of 64 bytes.
func tileConfig() *[64]byte {
	var cfg [64]byte
	cfg[0] = 1
	for t := 0; t < 4; t++ {
		cfg[16+2*t] = 64 // bytes a row
		cfg[48+t] = 16   // rows
	}
	return &cfg
}

// bf16 is x rounded to bfloat16 (x exact in bfloat16 here).
func bf16(x float32) uint16 { return uint16(math.Float32bits(x) >> 16) }

func main() {
	if !cpu.X86.HasAMXBF16 || !cpu.X86.HasAMXTile {
		fmt.Println("amx: this CPU has no AMX-BF16")
		return
	}
	const archReqXcompPerm, xfeatureXtiledata = 0x1023, 18
	if _, _, e := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXtiledata, 0); e != 0 {
		fmt.Fprintln(os.Stderr, "amx: arch_prctl(ARCH_REQ_XCOMP_PERM):", e)
		os.Exit(1)
	}
	cfg := tileConfig()
	// A = 1.0 everywhere, B = 2.0: every C element is 32 products of 2.
	a, b := make([]uint16, 16*32), make([]uint16, 16*32)
	for i := range a {
		a[i], b[i] = bf16(1), bf16(2)
	}
	c := make([]float32, 16*16)
	tileDot(cfg, &a[0], &b[0], &c[0])
	fmt.Printf("one product: C[0] = %v, C[255] = %v (want 64)\n", c[0], c[255])

	var wg sync.WaitGroup
	var mu sync.Mutex
	runs, bad := 0, 0
	stop := time.Now().Add(time.Second)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := make([]float32, 16*16)
			for time.Now().Before(stop) {
				for range 1000 {
					tileDot(cfg, &a[0], &b[0], &c[0])
				}
				_ = make([]byte, 1<<16)
				mu.Lock()
				runs++
				for _, v := range c {
					if v != 64 {
						bad++
						break
					}
				}
				mu.Unlock()
			}
		}()
	}
	go func() {
		for time.Now().Before(stop) {
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
	}()
	wg.Wait()
	fmt.Printf("8 goroutines with the GC running: %d batches of 1,000 products, %d wrong\n", runs, bad)

	n := 1 << 22
	t0 := time.Now()
	tileLoop(cfg, &a[0], &b[0], &c[0], n)
	amx := float64(n) * 2 * 16 * 16 * 32 * 2 / time.Since(t0).Seconds() / 1e9
	fma, isa := scnn.FMAPeak(1, 500*time.Millisecond)
	fmt.Printf("one core: TDPBF16PS %.0f GFLOP/s (bfloat16 products, float32 sums); %s FMA %.0f GFLOP/s (float32); ratio %.1f\n", amx, isa, fma, amx/fma)
	if bad > 0 {
		os.Exit(1)
	}
}
