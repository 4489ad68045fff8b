package fold

import "math"

// Method is a folding computation whose memory MemoryEstimate gives.
type Method int

const (
	MethodMFE            Method = iota // Params.Fold: the minimum free energy structure
	MethodPartition                    // Params.Partition: the ensemble and its pair probabilities
	MethodCentroid                     // Partition, then Ensemble.Centroid
	MethodMEA                          // Partition, then Ensemble.MEA
	MethodPartitionBonus               // Params.PartitionBonus: the ensemble with pair bonuses
)

func (m Method) String() string {
	switch m {
	case MethodMFE:
		return "mfe"
	case MethodPartition:
		return "partition function"
	case MethodCentroid:
		return "centroid"
	case MethodMEA:
		return "mea"
	case MethodPartitionBonus:
		return "partition function with pair bonuses"
	}
	return "fold method?"
}

// meaPairsPerBase is MemoryEstimate's allowance for Ensemble.MEA's pair
// lists: the pairs of probability above its cutoff (1e-4/(1+gamma)) per
// base. Random sequences of 200 to 2,000 nt have 3 to 12 (measured,
// gamma 1); each costs at most 64 bytes in the three lists (pairs,
// kept pairs, traceback items) and 2.25 times that while append grows
// them.
const meaPairsPerBase = 32

// MemoryEstimate is Params.MemoryEstimate with the default parameters.
func MemoryEstimate(m Method, n, span int) int64 {
	return DefaultParams().MemoryEstimate(m, n, span)
}

// MemoryEstimate returns the bytes that computing m for a sequence of n
// bases holds at its peak (its live heap; the garbage collector's margin
// is the caller's), counted from the tables the code allocates, with
// pairs spanning at most span bases (span <= 0 or >= n: any, the global
// fold):
//
//   - MFE (Fold): four int32 tables of (n+2)^2 cells (five with --noLP:
//     cc), 16 (n+2)^2 bytes, and O(n) vectors (f5, the encoded sequence,
//     the traceback and the structure), which 128 bytes a base and 32 KiB
//     bound (measured: 13 to 113 KiB at 200 to 2,000 nt, 53 KiB at 600 nt
//     with a span of 150);
//   - Partition: the MFE fold first, whose tables are garbage before the
//     partition function's are allocated (so the peak is the larger of the
//     two, not their sum): four float64 tables and one pair-type byte
//     table of (n+2)^2 cells, 33 (n+2)^2 bytes, O(n) vectors (128 bytes a
//     base) and the Boltzmann factors (512 KiB; measured 440 to 660 KiB
//     with the vectors), besides the MFE structure the Ensemble keeps; the
//     Ensemble keeps one float64 table;
//   - Centroid: Partition's, and its pair list (16 bytes a base);
//   - MEA: Partition's, and its O(n) vectors and pair lists
//     (meaPairsPerBase);
//   - PartitionBonus: Partition's, and the bonuses' float64 table in
//     the partition function's layout, 8 bytes a cell (one pass: a
//     rescaled retry frees the first pass's tables).
//
// With a span W below n (the local fold, Params.WithMaxSpan) the tables
// are bands of (n+2) W cells in place of (n+2)^2, and the partition
// function keeps its transposed twins in tables of their own: 66 (n+2) W
// bytes. A program's own copies (a dense float32 L x L probability map,
// 4 n^2 bytes whatever the span, an image of it) are not counted.
func (p *Params) MemoryEstimate(m Method, n, span int) int64 {
	n = max(n, 0)
	w := int64(n + 2)
	band, pfBytes := w, int64(33) // the row length of a table; the partition function's bytes a cell
	if span > 0 && span < n {
		band, pfBytes = int64(span), 66
	}
	if w > 1<<28 {
		return math.MaxInt64 // beyond any memory; no overflow below
	}
	cells := w * band
	tables := int64(4)
	if p.noLP {
		tables++
	}
	vectors := 128*w + 32<<10 // the fold's O(n) part and the MFE structure
	fold := tables*4*cells + vectors
	if m == MethodMFE {
		return fold
	}
	pf := max(fold, pfBytes*cells+128*w+512<<10+vectors)
	switch m {
	case MethodCentroid:
		return pf + 16*w + 4<<10
	case MethodMEA:
		return pf + 4*8*w + meaPairsPerBase*64*9/4*w
	case MethodPartitionBonus:
		return max(fold, (pfBytes+8)*cells+128*w+512<<10+vectors)
	}
	return pf
}
