package msa

import (
	"syscall"
	"testing"
)

// Rows that end where an unreadable page begins: every kernel reads no
// byte past a row (AVX-512's last step is a masked load), at every
// length up to 200.
func TestMismatchesPageEnd(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skip(err)
	}
	for i := range page {
		mem[i] = byte(i % 21)
	}
	for _, k := range mismatchKernels() {
		for l := 1; l <= 200; l++ {
			a := mem[page-l : page]         // ends at the guard page
			b := mem[page-2*l-1 : page-l-1] // another row, earlier in the page
			for _, maxMis := range []int{0, l / 2, l} {
				if got, want := k.within(a, b, maxMis), mismatchesLoop(a, b, maxMis); got != want {
					t.Fatalf("%s: l %d, max %d: %t, want %t", k.name, l, maxMis, got, want)
				}
				if got := k.within(b, a, maxMis); got != mismatchesLoop(b, a, maxMis) {
					t.Fatalf("%s: l %d, max %d, rows swapped: %t", k.name, l, maxMis, got)
				}
			}
		}
	}
}
