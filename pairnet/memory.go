package pairnet

import (
	"fmt"
	"math/bits"
	"runtime"

	"github.com/contactmap/contactmap/scnn"
)

// InferenceBytes estimates the memory, in bytes, that one inference pass
// (Forward in scnn.Inference(workers); workers <= 0 means GOMAXPROCS)
// of a network of Spec s takes for one sequence of length l (a batch of
// 1, all of it valid): its feature maps, its sequence buffers and the
// workspaces of its convolutions, besides the network's parameters and
// the caller's inputs. It is meant as an upper bound of the pass's peak
// live heap that is not loose by more than a factor 2
// (TestInferenceBytes measures both on the RNA default networks at
// lengths 200 and 400). For long sequences the maps dominate: about
// 4 * l(l+1)/2 bytes per channel of the widest maps alive together for
// an SCNN, 4 * l * l for a CNN.
//
// A caller that must not run out of memory (a command refusing an
// over-long input) should compare it, plus its own buffers (an L x L
// probability map, say), with the memory it has (package
// internal/memavail's Available), and leave the garbage collector room:
// with GOGC=100 the heap may grow to twice the live data between
// collections unless debug.SetMemoryLimit caps it.
//
// It follows the pass's allocations one by one: the maps an SCNN stores
// as packed upper triangles (l(l+1)/2 pixels) and a CNN as l x l
// row-major maps, each channel a float32, recycled through the pass's
// pool of released buffers as Forward releases and reserves them; the
// transient per-pixel weights of every masking and batchnorm; the
// BiLSTM's gate buffers; and each convolution's im2col tiles,
// output-side bands or direct-method row buffers per worker and packed
// kernels, kept in the kernels'
// scratch pools by power-of-two size. The error is Check's, or a length
// below 1.
func (s Spec) InferenceBytes(l, workers int) (int64, error) {
	if err := s.Check(); err != nil {
		return 0, err
	}
	if l < 1 {
		return 0, fmt.Errorf("pairnet: InferenceBytes of length %d", l)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	m := &memSim{scratch: map[int]int{}}
	pixels := l * l
	if s.Symmetric {
		pixels = l * (l + 1) / 2
	}
	// The 1D part: BiLSTM (its output is a plain tensor the pass later
	// recycles), Dense, and the concatenation with the input.
	var seq *simBuf
	if h := s.LSTMHidden; h > 0 {
		m.garbage(2 * (10*h*l + 5*h)) // per direction: gates, xg (4h each), c, h; z, zeros
		lstm := m.plain(2 * h * l)
		hd := m.alloc(s.LSTMOut * l)
		m.release(lstm)
		seq = m.alloc((s.In1D + s.LSTMOut) * l)
		m.release(hd)
	}
	pairWidth := s.Pair.width(s.Symmetric, s.seqWidth())
	pairIn := s.In2D + s.Fixed2D
	if s.cartesianInference() {
		m.cartesianPass(s, seq, l, workers)
		return m.finish(workers), nil
	}
	m.reserve(pixels * (pairWidth + pairIn))
	y := m.pairMap(s.Pair, s.Symmetric, s.seqWidth(), l, pixels, pairWidth)
	if seq != nil {
		m.release(seq)
	}
	if pairIn > 0 {
		y = m.concatInPlace(y, pixels*(pairWidth+pairIn))
	}
	width := pairWidth + pairIn
	block := func(b Block) {
		out := m.branches(b, s.Symmetric, l, width, workers)
		m.release(y)
		m.garbage(pixels) // batchnorm's pixel weights
		y, width = out, b.Width()
	}
	for _, b := range s.Blocks {
		block(b)
	}
	if s.Reinject != nil {
		reWidth := s.Reinject.width(s.Symmetric, s.In1D)
		total := width + reWidth + pairIn
		m.reserve(pixels * total)
		re := m.pairMap(*s.Reinject, s.Symmetric, s.In1D, l, pixels, reWidth)
		joined := m.concatInPlace(re, pixels*total)
		m.release(y)
		y, width = joined, total
	}
	for _, b := range s.Head {
		block(b)
	}
	out := m.branches(Uniform(1, s.OutKernel), s.Symmetric, l, width, workers)
	m.release(y)
	m.garbage(pixels) // the logits' own copy
	m.release(out)
	return m.finish(workers), nil
}

// finish adds each worker's GEMM edge buffer and, where the runtime's
// per-processor pools may keep a workspace that a pass with fewer
// workers than processors, moving between them, does not find again,
// one more copy of the largest (measured: one, 16 to 32 MB, at most);
// it returns the bytes.
func (m *memSim) finish(workers int) int64 {
	m.total += int64(workers) * 4096
	if runtime.GOMAXPROCS(0) > workers && m.maxClass > 0 {
		m.total += 1 << m.maxClass
	}
	return 4 * m.total
}

// cartesianInference is Net.byHalves for a Spec: a block after
// the pair map, and pair maps of two 1D halves (a CNN's products; an
// SCNN's sgConvs, of kernel 1, without ReLU).
func (s Spec) cartesianInference() bool {
	halves := func(m MapSpec) bool { return !s.Symmetric || !m.ReLU }
	return len(s.Blocks) > 0 && halves(s.Pair) && (s.Reinject == nil || halves(*s.Reinject))
}

// InfersByHalves reports whether an inference pass of the network s
// describes computes the convolutions that read its pair maps from the
// maps' two 1D halves, without materialising them (Net.Forward's
// inference by halves): s has a block after the pair map, and every pair
// map is a CNN's self-Cartesian product or an SCNN's sgConv of kernel 1
// without ReLU. Training passes go by halves too.
func (s Spec) InfersByHalves() bool { return s.cartesianInference() }

// cartesianPass is Net.forwardCartesian after the 1D part (seq: its
// output, nil without a BiLSTM).
func (m *memSim) cartesianPass(s Spec, seq *simBuf, l, workers int) {
	pixels, sym := l*l, s.Symmetric
	if sym {
		pixels = l * (l + 1) / 2
	}
	// The halves of a map of a 1D input of n channels: the product's (n
	// channels each, 2n in the kernel) or the sgConv's outer sum's (its
	// width each and in the kernel).
	halves := func(ms MapSpec, n int) (row, col *simBuf, prod int) {
		w := n
		if sym {
			w = ms.width(true, n)
		}
		row, col = m.alloc(l*w), m.alloc(l*w)
		if sym {
			return row, col, w
		}
		return row, col, 2 * w
	}
	row, col, prod := halves(s.Pair, s.seqWidth())
	if seq != nil {
		m.release(seq)
	}
	var after []int
	if s.In2D > 0 {
		after = append(after, s.In2D)
	}
	if s.Fixed2D > 0 {
		after = append(after, s.Fixed2D)
	}
	y := m.cartesianBranches(s.Blocks[0], sym, 0, prod, after, l, workers)
	m.release(row)
	m.release(col)
	m.garbage(pixels) // batchnorm's pixel weights
	width := s.Blocks[0].Width()
	block := func(b Block) {
		out := m.branches(b, sym, l, width, workers)
		m.release(y)
		m.garbage(pixels)
		y, width = out, b.Width()
	}
	for _, b := range s.Blocks[1:] {
		block(b)
	}
	head := s.Head
	if s.Reinject != nil {
		row, col, prod := halves(*s.Reinject, s.In1D)
		first := Uniform(1, s.OutKernel)
		if len(head) > 0 {
			first = head[0]
		}
		z := m.cartesianBranches(first, sym, width, prod, after, l, workers)
		m.release(y)
		m.release(row)
		m.release(col)
		if len(head) == 0 {
			m.garbage(pixels) // the logits' own copy
			m.release(z)
			return
		}
		m.garbage(pixels)
		y, width = z, first.Width()
		head = head[1:]
	}
	for _, b := range head {
		block(b)
	}
	out := m.branches(Uniform(1, s.OutKernel), sym, l, width, workers)
	m.release(y)
	m.garbage(pixels)
	m.release(out)
}

// cartesianBranches is scnn.ForwardBranchesCartesian (or
// ForwardBranchesSymCartesian, sym) of block b on a map of c0 dense
// channels, prod kernel channels of the halves' product and the dense
// channels after: the joined output; per convolution its full kernel
// (sym) and channel slices, the workspaces of its dense convolutions, a
// scratch output per After part, and the row and column terms' sums
// (float64).
func (m *memSim) cartesianBranches(b Block, sym bool, c0, prod int, after []int, l, workers int) *simBuf {
	pixels := l * l
	if sym {
		pixels = l * (l + 1) / 2
	}
	cin := c0 + prod
	for _, c := range after {
		cin += c
	}
	out := m.alloc(pixels * b.Width())
	for i, k := range b.Kernels {
		cout := b.Widths[i]
		if sym {
			m.garbage(k * k * cin * cout)
		}
		if c0 > 0 {
			m.garbage(k * k * c0 * cout)
			m.convScratch(k, sym, c0, cout, l, workers)
		}
		for _, c := range after {
			m.garbage(k * k * c * cout)
			tmp := m.alloc(pixels * cout)
			m.convScratch(k, sym, c, cout, l, workers)
			m.release(tmp)
		}
		m.garbage(2 * 2 * l * (k + 1) * cout) // prefix sums of R and Q
		m.garbage(2 * l * k * cout)           // each position's R, Q
	}
	return out
}

// convScratch takes the workspaces of one ordinary convolution of cin to
// cout channels (kernel k) from the kernels' scratch pools, as branches
// does for a branch of its own.
func (m *memSim) convScratch(k int, sym bool, cin, cout, l, workers int) {
	m.branchScratch(Block{Kernels: []int{k}, Widths: []int{cout}}, sym, l, cin, workers)
}

// simBuf is a buffer of the simulated pass: its capacity in floats.
type simBuf struct{ cap int }

// memSim follows an inference pass's allocations (floats): total counts
// everything allocated, as the heap grows with the collector off.
type memSim struct {
	pool     []*simBuf   // released buffers of the pass
	scratch  map[int]int // the kernels' scratch pools: free buffers per power of two
	maxClass int         // the largest power of two taken from them
	total    int64
}

func (m *memSim) garbage(n int)       { m.total += int64(n) }
func (m *memSim) plain(n int) *simBuf { m.total += int64(n); return &simBuf{n} }

// alloc is Pass.alloc: the smallest released buffer that fits, or a new one.
func (m *memSim) alloc(n int) *simBuf {
	best := -1
	for i, b := range m.pool {
		if b.cap >= n && (best < 0 || b.cap < m.pool[best].cap) {
			best = i
		}
	}
	if best < 0 {
		return m.plain(n)
	}
	b := m.pool[best]
	m.pool = append(m.pool[:best], m.pool[best+1:]...)
	return b
}

func (m *memSim) release(b *simBuf) { m.pool = append(m.pool, b) }

// reserve is Pass.Reserve.
func (m *memSim) reserve(n int) {
	for _, b := range m.pool {
		if b.cap >= n {
			return
		}
	}
	m.pool = append(m.pool, m.plain(n))
}

// concatInPlace is scnn.ConcatInPlace giving up b for a joined map of n
// floats: in place when b has room, else Concat and release.
func (m *memSim) concatInPlace(b *simBuf, n int) *simBuf {
	if b.cap >= n {
		return b
	}
	y := m.alloc(n)
	m.release(b)
	return y
}

// pairMap is pairMap.apply of a 1D input of n channels into width
// channels: the sgConv's (or product's) map, masking and batchnorm.
func (m *memSim) pairMap(ms MapSpec, symmetric bool, n, l, pixels, width int) *simBuf {
	if symmetric {
		m.garbage(l * width) // the sgConv's per-position half
	}
	y := m.alloc(pixels * width)
	m.garbage(pixels) // MaskPixels' weights
	if ms.BN {
		m.garbage(pixels)
	}
	return y
}

// getScratch takes k buffers of n floats from the kernels' scratch pool
// (class 2^c >= n), allocating what it lacks; putScratch gives them back.
func (m *memSim) getScratch(need map[int]int) {
	for c, k := range need {
		m.maxClass = max(m.maxClass, c)
		if have := m.scratch[c]; have < k {
			m.total += int64(k-have) << c
			m.scratch[c] = k
		}
	}
}

func class(n int) int { return bits.Len(uint(n - 1)) }

// packed is the scratch class of a packed k x n kernel matrix (the widest
// micro-kernel panel, 64 columns, bounds every kernel set's).
func packed(k, n int) int { return class(k * (n + 63) / 64 * 64) }

// The kernels' workspace constants (scnn/internal/kern).
const (
	tileBudget   = 4 << 20 // im2col floats per worker tile
	maxTile      = 1024    // pixels per tile
	zBudget      = 8 << 20 // output-side band floats
	minBandItems = 4
)

// branches is ForwardBranches of block b on a map of cin channels: the
// joined output, and each convolution's workspaces.
func (m *memSim) branches(b Block, symmetric bool, l, cin, workers int) *simBuf {
	pixels := l * l
	if symmetric {
		pixels = l * (l + 1) / 2
	}
	out := m.alloc(pixels * b.Width())
	m.branchScratch(b, symmetric, l, cin, workers)
	return out
}

// branchScratch takes the workspaces of block b's convolutions on a map of
// cin channels from the kernels' scratch pools.
func (m *memSim) branchScratch(b Block, symmetric bool, l, cin, workers int) {
	pixels := l * l
	if symmetric {
		pixels = l * (l + 1) / 2
	}
	tile := func(kk int) int { return min(max(tileBudget/kk, 64), maxTile) }
	im2col := func(kk int, need map[int]int) {
		t := tile(kk)
		tiles := (pixels + t - 1) / t
		need[class(t*kk)] += min(workers, tiles)
	}
	outSide := func(k, cout int) (band int, ok bool) {
		pad := k / 2
		rows := zBudget / (l * k * k * cout)
		band = max(min(rows-2*pad, l), 1)
		band = min(band, (l+minBandItems-1)/minBandItems)
		band = max(band, 1)
		return band, k > 1 && 2*cout <= cin && (band == l || 4*2*(k/2) <= band)
	}
	shared, direct := len(b.Kernels) > 1, true
	for i, k := range b.Kernels {
		if symmetric {
			m.garbage(k * k * cin * b.Widths[i]) // SymPresConv's full kernel
		}
		d := scnn.DirectConv(k, cin, b.Widths[i], l)
		if _, ok := outSide(k, b.Widths[i]); ok || d {
			shared = false
		}
		direct = direct && d
	}
	// directScratch takes the direct method's workspaces for a block of
	// largest kernel k (kern's convForwardDirectBranches: row buffers and
	// accumulators per worker, up to 4 bands per worker and a row each).
	directScratch := func(k int, need map[int]int) {
		ring, acc, _ := scnn.DirectWorkspace(k, cin, l, k, 0)
		used := min(workers, max(1, min(4*workers, l)))
		need[class(ring)] += used
		need[class(acc)] += used
	}
	directWeights := func(k, cout int) {
		_, _, wts := scnn.DirectWorkspace(k, cin, l, k, cout)
		m.garbage(wts)
	}
	if direct {
		// Every branch at once, sharing the row buffers.
		kmax := 0
		for i, k := range b.Kernels {
			kmax = max(kmax, k)
			directWeights(k, b.Widths[i])
		}
		need := map[int]int{}
		directScratch(kmax, need)
		m.getScratch(need)
		return
	}
	if shared {
		kmax := 0
		for _, k := range b.Kernels {
			kmax = max(kmax, k)
		}
		kk := kmax * kmax * cin
		need := map[int]int{}
		for i, k := range b.Kernels {
			if k == kmax {
				need[packed(kk, b.Widths[i])]++
			} else {
				need[packed(k*cin, b.Widths[i])] += k
			}
		}
		im2col(kk, need)
		m.getScratch(need)
		return
	}
	for i, k := range b.Kernels {
		cout := b.Widths[i]
		need := map[int]int{}
		if scnn.DirectConv(k, cin, cout, l) {
			directWeights(k, cout)
			directScratch(k, need)
		} else if band, ok := outSide(k, cout); ok {
			n := k * k * cout
			m.garbage(cin * n) // the reordered kernel
			need[packed(cin, n)]++
			need[class((band+2*(k/2))*l*n)] += min(workers, (l+band-1)/band)
		} else {
			need[packed(k*k*cin, cout)]++
			im2col(k*k*cin, need)
		}
		m.getScratch(need)
	}
}
