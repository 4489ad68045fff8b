//go:build amd64 && !purego

#include "textflag.h"
#include "chunkmask_amd64.h"

// func gemvRowsAVX512(y *float32, n int, a *float32, m int, w *float32, ldw int, skipZero bool)
//
// GemvRowsF32 (gemv32.go): y's n values 16 at a time (the last under
// the mask K1), each chunk held in Z0 while the rows run in order: the
// row's value broadcast (Z1), times the chunk of the row (VMULPS: the
// product rounded), added (VADDPS). Each add takes the product as its
// first operand, as the portable loop compiles (ADDSS): where both are
// NaN, the product's NaN is the sum, the same payload.
//
// Registers: DI the chunk of y, SI a, BX m, R8 the chunk of w's first
// row, R9 ldw in bytes, DX the floats of y left, CX the row's index
// (AX and CX the chunk's mask first), R10 the row, R11 a's value, R12
// skipZero.
TEXT ·gemvRowsAVX512(SB), NOSPLIT, $0-49
	MOVQ    y+0(FP), DI
	MOVQ    n+8(FP), DX
	MOVQ    a+16(FP), SI
	MOVQ    m+24(FP), BX
	MOVQ    w+32(FP), R8
	MOVQ    ldw+40(FP), R9
	SHLQ    $2, R9
	MOVBQZX skipZero+48(FP), R12

chunk:
	CHUNK_MASK(DX)
	VMOVUPS.Z (DI), K1, Z0
	MOVQ      R8, R10
	XORQ      CX, CX

row:
	MOVL (SI)(CX*4), R11
	TESTQ R12, R12
	JZ    use
	TESTL $0x7fffffff, R11 // +0 or -0
	JZ    next

use:
	VBROADCASTSS (SI)(CX*4), Z1
	VMULPS.Z     (R10), Z1, K1, Z2
	VADDPS       Z0, Z2, Z0 // the product first, as the Go loop's ADDSS

next:
	ADDQ R9, R10
	INCQ CX
	CMPQ CX, BX
	JLT  row
	VMOVUPS Z0, K1, (DI)
	ADDQ    $64, DI
	ADDQ    $64, R8
	SUBQ    $16, DX
	JG      chunk
	VZEROUPPER
	RET

// func gerAVX512(w *float32, ldw int, a *float32, m int, b *float32, n int)
//
// GerF32 (gemv32.go): row by row, b 16 at a time (the last under K1):
// w's chunk plus the row's value times b's chunk, the product rounded
// first.
//
// Registers: DI the row of w, R9 ldw in bytes, SI a, BX the rows left,
// R8 b, DX n, CX the floats left, R10/R11 the chunks of w and b.
TEXT ·gerAVX512(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), DI
	MOVQ ldw+8(FP), R9
	SHLQ $2, R9
	MOVQ a+16(FP), SI
	MOVQ m+24(FP), BX
	MOVQ b+32(FP), R8
	MOVQ n+40(FP), DX
	// K2: the last chunk's floats (all 16 where n is a multiple of 16).
	TAIL_MASK(DX, K2)

grow:
	VBROADCASTSS (SI), Z1
	MOVQ         DI, R10
	MOVQ         R8, R11
	MOVQ         DX, CX

gchunk:
	CMPQ CX, $16
	JLE  glast
	VMULPS  (R11), Z1, Z2
	VADDPS  (R10), Z2, Z2
	VMOVUPS Z2, (R10)
	ADDQ    $64, R10
	ADDQ    $64, R11
	SUBQ    $16, CX
	JMP     gchunk

glast:
	VMULPS.Z  (R11), Z1, K2, Z2
	VMOVUPS.Z (R10), K2, Z3
	VADDPS    Z3, Z2, Z2 // the product first, as the Go loop's ADDSS
	VMOVUPS   Z2, K2, (R10)
	ADDQ      R9, DI
	ADDQ      $4, SI
	DECQ      BX
	JNZ       grow
	VZEROUPPER
	RET
