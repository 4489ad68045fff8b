package kern

// TriSize is the number of packed positions of an L x L symmetric map:
// L(L+1)/2.
func TriSize(l int) int { return l * (l + 1) / 2 }

// Tri is the packed index of (i, j), i <= j, in an L x L map:
// i*L - i*(i-1)/2 + (j - i).
func Tri(l, i, j int) int { return i*l - i*(i-1)/2 + (j - i) }

// TriSym is Tri with i and j in either order.
func TriSym(l, i, j int) int {
	if i > j {
		i, j = j, i
	}
	return Tri(l, i, j)
}

// TriPos returns (i, j), i <= j, of packed index p in an L x L map.
func TriPos(l, p int) (i, j int) {
	for i = 0; ; i++ {
		n := l - i
		if p < n {
			return i, i + p
		}
		p -= n
	}
}

// Pack copies the upper triangle of a dense L x L x C map into packed order:
//
//	for i <= j: dst[Tri(L,i,j)*C+c] = src[(i*L+j)*C+c]
func Pack(dst, src []float32, l, c int) {
	p := 0
	for i := 0; i < l; i++ {
		n := (l - i) * c
		copy(dst[p:p+n], src[(i*l+i)*c:(i*l+l)*c])
		p += n
	}
}

// Unpack writes the full L x L x C map of a packed one:
//
//	dst[(i*L+j)*C+c] = src[TriSym(L,i,j)*C+c]
//
// Row i of the triangle is copied once into row i of dst (j >= i) and,
// as runs of C floats (CopyRuns), into column i (j > i).
func Unpack(dst, src []float32, l, c int) {
	p := 0
	for i := 0; i < l; i++ {
		n := (l - i) * c
		copy(dst[(i*l+i)*c:(i*l+l)*c], src[p:p+n])
		if i+1 < l {
			CopyRuns(dst[((i+1)*l+i)*c:], src[p+c:], c, l-i-1, l*c, c)
		}
		p += n
	}
}
