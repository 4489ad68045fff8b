//go:build amd64 && !purego

#include "textflag.h"

// Lane selections of VPERMI2PS over two tables (indices 0-15: the first,
// 16-31: the second): pixel m's and m+4's rows (lanes 0 and 1 of each
// table), and pixel m+8's and m+12's (lanes 2 and 3).
DATA storeAcc8Lo<>+0(SB)/4, $0
DATA storeAcc8Lo<>+4(SB)/4, $1
DATA storeAcc8Lo<>+8(SB)/4, $2
DATA storeAcc8Lo<>+12(SB)/4, $3
DATA storeAcc8Lo<>+16(SB)/4, $16
DATA storeAcc8Lo<>+20(SB)/4, $17
DATA storeAcc8Lo<>+24(SB)/4, $18
DATA storeAcc8Lo<>+28(SB)/4, $19
DATA storeAcc8Lo<>+32(SB)/4, $4
DATA storeAcc8Lo<>+36(SB)/4, $5
DATA storeAcc8Lo<>+40(SB)/4, $6
DATA storeAcc8Lo<>+44(SB)/4, $7
DATA storeAcc8Lo<>+48(SB)/4, $20
DATA storeAcc8Lo<>+52(SB)/4, $21
DATA storeAcc8Lo<>+56(SB)/4, $22
DATA storeAcc8Lo<>+60(SB)/4, $23
GLOBL storeAcc8Lo<>(SB), RODATA|NOPTR, $64

DATA storeAcc8Hi<>+0(SB)/4, $8
DATA storeAcc8Hi<>+4(SB)/4, $9
DATA storeAcc8Hi<>+8(SB)/4, $10
DATA storeAcc8Hi<>+12(SB)/4, $11
DATA storeAcc8Hi<>+16(SB)/4, $24
DATA storeAcc8Hi<>+20(SB)/4, $25
DATA storeAcc8Hi<>+24(SB)/4, $26
DATA storeAcc8Hi<>+28(SB)/4, $27
DATA storeAcc8Hi<>+32(SB)/4, $12
DATA storeAcc8Hi<>+36(SB)/4, $13
DATA storeAcc8Hi<>+40(SB)/4, $14
DATA storeAcc8Hi<>+44(SB)/4, $15
DATA storeAcc8Hi<>+48(SB)/4, $28
DATA storeAcc8Hi<>+52(SB)/4, $29
DATA storeAcc8Hi<>+56(SB)/4, $30
DATA storeAcc8Hi<>+60(SB)/4, $31
GLOBL storeAcc8Hi<>(SB), RODATA|NOPTR, $64

// PAIR stores pixels m, m+4 (R11, R11 + 4 ldo) and m+8, m+12 (R13,
// R13 + 4 ldo) from u_m (A) and u_{m+4} (B), whose 128-bit lane k holds
// channels 0-3 (A) and 4-7 (B) of pixel 4k+m.
#define PAIR(A, B) \
	VMOVUPS   Z30, Z24; \
	VPERMI2PS B, A, Z24; \
	VMOVUPS   Z31, Z25; \
	VPERMI2PS B, A, Z25; \
	VMOVUPS   Y24, (R11); \
	VEXTRACTF64X4 $1, Z24, (R11)(R8*4); \
	VMOVUPS   Y25, (R13); \
	VEXTRACTF64X4 $1, Z25, (R13)(R8*4); \
	ADDQ      R8, R11; \
	ADDQ      R8, R13

// func storeAcc8AVX512(out *float32, ldo int, acc *float32, n, blocks int)
//
// For each block of 16 pixels: the 8 rows r_f = acc[f*n + j0 : +16] in
// Z0-Z7; VUNPCKL/HPS of (r0, r1), (r2, r3), (r4, r5), (r6, r7) and
// VSHUFPS of those give u_m (channels 0-3) and u_{m+4} (channels 4-7) of
// pixels m, m+4, m+8, m+12 in their four lanes (m = 0..3); VPERMI2PS
// joins each pixel's two halves into a 256-bit row, stored at
// out + pixel*ldo.
TEXT ·storeAcc8AVX512(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ ldo+8(FP), R8
	SHLQ $2, R8
	MOVQ acc+16(FP), SI
	MOVQ n+24(FP), R9
	SHLQ $2, R9
	MOVQ blocks+32(FP), CX
	VMOVUPS storeAcc8Lo<>(SB), Z30
	VMOVUPS storeAcc8Hi<>(SB), Z31

block:
	MOVQ    SI, R10
	VMOVUPS (R10), Z0
	ADDQ    R9, R10
	VMOVUPS (R10), Z1
	ADDQ    R9, R10
	VMOVUPS (R10), Z2
	ADDQ    R9, R10
	VMOVUPS (R10), Z3
	ADDQ    R9, R10
	VMOVUPS (R10), Z4
	ADDQ    R9, R10
	VMOVUPS (R10), Z5
	ADDQ    R9, R10
	VMOVUPS (R10), Z6
	ADDQ    R9, R10
	VMOVUPS (R10), Z7

	VUNPCKLPS Z1, Z0, Z8
	VUNPCKHPS Z1, Z0, Z9
	VUNPCKLPS Z3, Z2, Z10
	VUNPCKHPS Z3, Z2, Z11
	VUNPCKLPS Z5, Z4, Z12
	VUNPCKHPS Z5, Z4, Z13
	VUNPCKLPS Z7, Z6, Z14
	VUNPCKHPS Z7, Z6, Z15

	VSHUFPS $0x44, Z10, Z8, Z16
	VSHUFPS $0xEE, Z10, Z8, Z17
	VSHUFPS $0x44, Z11, Z9, Z18
	VSHUFPS $0xEE, Z11, Z9, Z19
	VSHUFPS $0x44, Z14, Z12, Z20
	VSHUFPS $0xEE, Z14, Z12, Z21
	VSHUFPS $0x44, Z15, Z13, Z22
	VSHUFPS $0xEE, Z15, Z13, Z23

	MOVQ DI, R11
	LEAQ (DI)(R8*8), R13
	PAIR(Z16, Z20)
	PAIR(Z17, Z21)
	PAIR(Z18, Z22)
	PAIR(Z19, Z23)

	ADDQ $64, SI
	MOVQ R8, AX
	SHLQ $4, AX
	ADDQ AX, DI
	DECQ CX
	JNZ  block
	VZEROUPPER
	RET

// func accInit8AVX512(acc *float32, n int, vals *float32, vecs int)
//
// For f < 8: vals[f] broadcast (VBROADCASTSS) and stored as vecs vectors
// of 16 at acc + f*n.
TEXT ·accInit8AVX512(SB), NOSPLIT, $0-32
	MOVQ acc+0(FP), DI
	MOVQ n+8(FP), R9
	SHLQ $2, R9
	MOVQ vals+16(FP), SI
	MOVQ vecs+24(FP), R8
	MOVQ $8, DX

row:
	VBROADCASTSS (SI), Z0
	MOVQ DI, R10
	MOVQ R8, CX

vec:
	VMOVUPS Z0, (R10)
	ADDQ    $64, R10
	DECQ    CX
	JNZ     vec
	ADDQ    $4, SI
	ADDQ    R9, DI
	DECQ    DX
	JNZ     row
	VZEROUPPER
	RET
