package rna

// MinHairpin is the smallest hairpin loop (unpaired bases between the
// two bases of a pair) the baseline allows.
const MinHairpin = 3

// canonical reports whether two bases form a Watson-Crick or wobble pair
// (AU, CG, GU).
func canonical(a, b byte) bool {
	switch string([]byte{a, b}) {
	case "AU", "UA", "CG", "GC", "GU", "UG":
		return true
	}
	return false
}

// StackingBaseline is a model-free prediction for the evaluation tables:
// among nested structures of canonical pairs with hairpin loops of at
// least MinHairpin bases, one with the most stacked pairs (a pair (i, j)
// whose (i+1, j-1) is also a pair), by Nussinov-style dynamic
// programming in O(L^3) time and O(L^2) memory:
//
//	H(i,j) = stacked pairs inside and including (i, j) when i pairs j:
//	         max(S(i+1,j-1), H(i+1,j-1) + 1)   for a canonical (i, j), j-i > MinHairpin
//	S(i,j) = best over [i, j]: max(S(i+1,j), max_k H(i,k) + S(k+1,j))
//
// Pairs that stack on nothing score 0, so lone pairs never help.
func StackingBaseline(name, seq string) (*Structure, error) {
	l := len(seq)
	const none = int32(-1 << 30)
	h := make([]int32, l*l)
	s := make([]int32, l*l)
	at := func(t []int32, i, j int) int32 {
		if i > j || i < 0 || j >= l {
			return 0
		}
		return t[i*l+j]
	}
	for i := l - 1; i >= 0; i-- {
		for j := i; j < l; j++ {
			hv := none
			if j-i > MinHairpin && canonical(seq[i], seq[j]) {
				hv = at(s, i+1, j-1)
				if in := at(h, i+1, j-1); j-i-2 > MinHairpin && in != none && in+1 > hv {
					hv = in + 1
				}
			}
			h[i*l+j] = hv
			best := at(s, i+1, j)
			for k := i + MinHairpin + 1; k <= j; k++ {
				if hk := h[i*l+k]; hk != none {
					best = max(best, hk+at(s, k+1, j))
				}
			}
			s[i*l+j] = best
		}
	}
	// Traceback.
	var pairs [][2]int
	type span struct {
		i, j   int
		paired bool // i pairs j (an H cell)
	}
	stack := []span{{0, l - 1, false}}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, j := c.i, c.j
		if i >= j {
			continue
		}
		if c.paired {
			pairs = append(pairs, [2]int{i, j})
			in := at(h, i+1, j-1)
			if j-i-2 > MinHairpin && in != none && in+1 >= at(s, i+1, j-1) && in+1 == h[i*l+j] {
				stack = append(stack, span{i + 1, j - 1, true})
			} else {
				stack = append(stack, span{i + 1, j - 1, false})
			}
			continue
		}
		v := s[i*l+j]
		if v == at(s, i+1, j) {
			stack = append(stack, span{i + 1, j, false})
			continue
		}
		for k := i + MinHairpin + 1; k <= j; k++ {
			if hk := h[i*l+k]; hk != none && hk+at(s, k+1, j) == v {
				stack = append(stack, span{i, k, true}, span{k + 1, j, false})
				break
			}
		}
	}
	return New(name, seq, pairs)
}
