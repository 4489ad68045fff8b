//go:build amd64 && !purego

#include "textflag.h"
#include "chunkmask_amd64.h"

// func outerSumRowAVX512(out, ai, aj, bias *float32, cnt, f int)
//
// For each chunk of 16 channels (the last under the mask K1 of its f%16
// channels): ai and bias in Z1, Z2; for each of cnt pixels,
// out = (ai + aj) + bias (VADDPS twice), then aj, out += f floats.
TEXT ·outerSumRowAVX512(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ ai+8(FP), SI
	MOVQ aj+16(FP), DX
	MOVQ bias+24(FP), R8
	MOVQ cnt+32(FP), BX
	MOVQ f+40(FP), R9
	MOVQ R9, R13
	SHLQ $2, R13 // a pixel's bytes

chunk:
	CMPQ R9, $0
	JLE  done
	CHUNK_MASK(R9)
	VMOVUPS.Z (SI), K1, Z1
	VMOVUPS.Z (R8), K1, Z2
	MOVQ      DI, R10
	MOVQ      DX, R11
	MOVQ      BX, CX

pixel:
	VMOVUPS.Z (R11), K1, Z0
	VADDPS    Z0, Z1, Z0
	VADDPS    Z2, Z0, Z0
	VMOVUPS   Z0, K1, (R10)
	ADDQ      R13, R10
	ADDQ      R13, R11
	DECQ      CX
	JNZ       pixel

	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, R8
	SUBQ $16, R9
	JMP  chunk

done:
	VZEROUPPER
	RET

// func rowSumsRowAVX512(r, y *float32, cnt, f int)
//
// For each chunk of 16 channels (the last under the mask K1): r's chunk
// in Z1; for each of cnt pixels j, v = y[j]: Z1 += v, and for j > 0
// r[j] += v; then Z1 stored back to r.
TEXT ·rowSumsRowAVX512(SB), NOSPLIT, $0-32
	MOVQ r+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ cnt+16(FP), BX
	MOVQ f+24(FP), R9
	MOVQ R9, R13
	SHLQ $2, R13

chunk:
	CMPQ R9, $0
	JLE  done
	CHUNK_MASK(R9)
	VMOVUPS.Z (DI), K1, Z1
	VMOVUPS.Z (SI), K1, Z0
	VADDPS    Z0, Z1, Z1
	MOVQ      DI, R10
	MOVQ      SI, R11
	MOVQ      BX, CX
	DECQ      CX
	JZ        store

pixel:
	ADDQ      R13, R10
	ADDQ      R13, R11
	VMOVUPS.Z (R11), K1, Z0
	VADDPS    Z0, Z1, Z1
	VMOVUPS.Z (R10), K1, Z3
	VADDPS    Z0, Z3, Z3
	VMOVUPS   Z3, K1, (R10)
	DECQ      CX
	JNZ       pixel

store:
	VMOVUPS Z1, K1, (DI)
	ADDQ    $64, DI
	ADDQ    $64, SI
	SUBQ    $16, R9
	JMP     chunk

done:
	VZEROUPPER
	RET
