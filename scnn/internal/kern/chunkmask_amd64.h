// CHUNK_MASK(n) sets K1 to the low min(n, 16) bits: the mask of a chunk
// of 16 floats of which n remain (n >= 1). It uses AX and CX.
#define CHUNK_MASK(n) \
	MOVQ    $16, CX; \
	CMPQ    n, CX; \
	CMOVQLT n, CX; \
	MOVQ    $1, AX; \
	SHLQ    CX, AX; \
	DECQ    AX; \
	KMOVW   AX, K1

// TAIL_MASK(n, k) sets k to the mask of the last chunk of 16 floats of n
// (n >= 1): its ((n-1) mod 16) + 1 low bits, all 16 where n is a
// multiple of 16. It uses AX and CX.
#define TAIL_MASK(n, k) \
	MOVQ  n, CX; \
	DECQ  CX; \
	ANDQ  $15, CX; \
	INCQ  CX; \
	MOVQ  $1, AX; \
	SHLQ  CX, AX; \
	DECQ  AX; \
	KMOVW AX, k
