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
