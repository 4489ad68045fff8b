//go:build amd64 && !purego

#include "textflag.h"
#include "chunkmask_amd64.h"

// FOLD_OP decodes the operation at R11 for the pixel at DI (dst row) and
// SI (x): AX = dst+d, R13 = x+a (zero where a is foldZero), R14 = x+b
// (zero where b is foldZero or foldNone), by conditional moves; the
// flags then say whether b is foldNone (JEQ: a copy). It uses CX.
#define FOLD_OP \
	MOVLQSX 0(R11), AX; \
	LEAQ    (DI)(AX*4), AX; \
	MOVLQSX 4(R11), R13; \
	LEAQ    (SI)(R13*4), CX; \
	TESTQ   R13, R13; \
	MOVQ    CX, R13; \
	CMOVQLT zero+24(FP), R13; \
	MOVLQSX 8(R11), R14; \
	LEAQ    (SI)(R14*4), CX; \
	TESTQ   R14, R14; \
	CMOVQLT zero+24(FP), CX; \
	CMPQ    R14, $-2; \
	MOVQ    CX, R14

// func foldRowsAVX512(dst *float32, nd int, x, zero *float32, ops *foldOp, nops, m, c int)
//
// foldRows (fold.go), the places checked by the caller: for each of m
// pixels, for each operation {d, a, b, _} (int32s, 16 bytes), c floats
// of dst+d from x+a (zero where a is foldZero), plus x+b (zero where b is
// foldZero; nothing where b is foldNone), 16 a vector, the last under a
// mask (K1), in a 256-bit register where it holds at most 8 floats (a
// 512-bit access whose masked-off half crosses a cache line may cost a
// split access; no difference was measured); x's places move by c
// floats a pixel, zero's do not.
//
// Rows of 8 channels go four pixels an operation, each term's 32 floats
// in two 512-bit registers, each pixel's 8 stored apart (zero must then
// hold 32 zeros), and rows of 4 channels likewise in one register; the
// last m mod 4 pixels one by one.
//
// Registers: DI the pixel's dst row, R8 nd in bytes, SI x moved to the
// pixel, DX the operations, R9 their end, BX the pixels left, R10 c in
// bytes, R11 the operation, AX/R13/R14 dst/first/second term (FOLD_OP),
// CX the floats left (FOLD_OP's scratch first), R12 the groups of four
// left.
TEXT ·foldRowsAVX512(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ nd+8(FP), R8
	SHLQ $2, R8
	MOVQ x+16(FP), SI
	MOVQ ops+32(FP), DX
	MOVQ nops+40(FP), R9
	SHLQ $4, R9
	ADDQ DX, R9
	MOVQ m+48(FP), BX
	MOVQ c+56(FP), R10
	// K1: the last vector's c mod 16 floats (all 16 where c is a
	// multiple of 16: the loop below then ends with a full vector).
	TAIL_MASK(R10, K1)
	SHLQ $2, R10
	// Rows of 8 or 4 channels: four pixels an operation (below) while
	// four are left.
	CMPQ R10, $16
	JEQ  quad4start
	CMPQ R10, $32
	JNE  pixel
	MOVQ BX, R12
	SHRQ $2, R12
	JZ   pixel
	ANDQ $3, BX

quad:
	MOVQ DX, R11

quadop:
	FOLD_OP
	// The first term of pixels t, t+1 (Z0) and t+2, t+3 (Z1).
	VMOVUPS (R13), Z0
	VMOVUPS 64(R13), Z1
	JEQ     quadstore
	VADDPS  (R14), Z0, Z0
	VADDPS  64(R14), Z1, Z1

quadstore:
	VMOVUPS       Y0, (AX)
	VEXTRACTF64X4 $1, Z0, Y2
	VMOVUPS       Y2, (AX)(R8*1)
	VMOVUPS       Y1, (AX)(R8*2)
	VEXTRACTF64X4 $1, Z1, Y3
	LEAQ          (AX)(R8*2), CX
	VMOVUPS       Y3, (CX)(R8*1)
	ADDQ          $16, R11
	CMPQ          R11, R9
	JLT           quadop
	LEAQ          (DI)(R8*4), DI
	ADDQ          $128, SI
	DECQ          R12
	JNZ           quad
	TESTQ         BX, BX
	JZ            done

	// Rows of 4 channels: each term's 16 floats of pixels t..t+3 in one
	// 512-bit register, each pixel's 4 stored apart.
quad4start:
	MOVQ BX, R12
	SHRQ $2, R12
	JZ   pixel
	ANDQ $3, BX

quad4:
	MOVQ DX, R11

quad4op:
	FOLD_OP
	VMOVUPS (R13), Z0
	JEQ     quad4store
	VADDPS  (R14), Z0, Z0

quad4store:
	VMOVUPS        X0, (AX)
	VEXTRACTF32X4  $1, Z0, X1
	VMOVUPS        X1, (AX)(R8*1)
	VEXTRACTF32X4  $2, Z0, X2
	VMOVUPS        X2, (AX)(R8*2)
	VEXTRACTF32X4  $3, Z0, X3
	LEAQ           (AX)(R8*2), CX
	VMOVUPS        X3, (CX)(R8*1)
	ADDQ           $16, R11
	CMPQ           R11, R9
	JLT            quad4op
	LEAQ           (DI)(R8*4), DI
	ADDQ           $64, SI
	DECQ           R12
	JNZ            quad4
	TESTQ          BX, BX
	JZ             done

pixel:
	MOVQ DX, R11

op:
	FOLD_OP
	MOVQ c+56(FP), CX // MOVQ leaves FOLD_OP's flags alone
	JEQ  copy

	// dst = first + second, whole vectors while more than 16 floats
	// are left, then the last (1-16) under K1.
add:
	CMPQ CX, $16
	JLE  addlast
	VMOVUPS (R13), Z0
	VADDPS  (R14), Z0, Z0
	VMOVUPS Z0, (AX)
	ADDQ    $64, AX
	ADDQ    $64, R13
	ADDQ    $64, R14
	SUBQ    $16, CX
	JMP     add

addlast:
	CMPQ      CX, $8
	JGT       addlast16
	VMOVUPS.Z (R13), K1, Y0
	VMOVUPS.Z (R14), K1, Y1
	VADDPS    Y1, Y0, Y0
	VMOVUPS   Y0, K1, (AX)
	JMP       next

addlast16:
	VMOVUPS.Z (R13), K1, Z0
	VMOVUPS.Z (R14), K1, Z1
	VADDPS    Z1, Z0, Z0
	VMOVUPS   Z0, K1, (AX)
	JMP       next

	// dst = first.
copy:
	CMPQ CX, $16
	JLE  copylast
	VMOVUPS (R13), Z0
	VMOVUPS Z0, (AX)
	ADDQ    $64, AX
	ADDQ    $64, R13
	SUBQ    $16, CX
	JMP     copy

copylast:
	CMPQ      CX, $8
	JGT       copylast16
	VMOVUPS.Z (R13), K1, Y0
	VMOVUPS   Y0, K1, (AX)
	JMP       next

copylast16:
	VMOVUPS.Z (R13), K1, Z0
	VMOVUPS   Z0, K1, (AX)

next:
	ADDQ $16, R11
	CMPQ R11, R9
	JLT  op
	ADDQ R8, DI
	ADDQ R10, SI
	DECQ BX
	JNZ  pixel

done:
	VZEROUPPER
	RET

// func mirrorColumnAVX512(dst, src *float32, p, w, c int)
//
// windowRow's mirrored pixels (fold.go), 1 <= c <= 16, p >= 1: for
// q < p, the c floats of (q, p) of a packed w x w triangle,
// Tri(w, q, p) = p for q = 0 and w-q-1 pixels further for each next q,
// to dst[q*c:], one masked vector (K1) each.
//
// Registers: DI dst, SI src, AX the offset in bytes, R8 the next step
// in bytes, R9 c in bytes, CX q, DX p.
TEXT ·mirrorColumnAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ p+16(FP), DX
	MOVQ w+24(FP), R8
	MOVQ c+32(FP), CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	MOVQ CX, R9
	SHLQ $2, R9
	MOVQ DX, AX
	IMULQ R9, AX      // p*c floats, in bytes
	DECQ R8
	IMULQ R9, R8      // (w-1)*c floats, in bytes
	XORQ CX, CX

mirror:
	VMOVUPS.Z (SI)(AX*1), K1, Z0
	VMOVUPS   Z0, K1, (DI)
	ADDQ      R9, DI
	ADDQ      R8, AX
	SUBQ      R9, R8
	INCQ      CX
	CMPQ      CX, DX
	JLT       mirror
	VZEROUPPER
	RET
