package fold

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMFE folds random sequences of 500, 1,000, 1,500 (a 16S rRNA)
// and 2,000 nt on GOMAXPROCS goroutines (run with -benchtime 1x; -cpu to
// vary).
func BenchmarkMFE(b *testing.B) {
	for _, n := range []int{500, 1000, 1500, 2000} {
		seq := randomSeq(rand.New(rand.NewPCG(uint64(n), 7)), n, false)
		b.Run(fmt.Sprintf("L=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := MFE(seq); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPartition computes the partition function and the pair
// probabilities of the random sequences of BenchmarkMFE of 500, 1,000
// and 1,500 nt (including the MFE fold it starts with) on GOMAXPROCS
// goroutines (run with -benchtime 1x; -cpu to vary).
func BenchmarkPartition(b *testing.B) {
	for _, n := range []int{500, 1000, 1500} {
		seq := randomSeq(rand.New(rand.NewPCG(uint64(n), 7)), n, false)
		b.Run(fmt.Sprintf("L=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Partition(seq); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
