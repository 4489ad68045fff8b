//go:build amd64 && !purego

#include "textflag.h"
#include "chunkmask_amd64.h"

// func addRunsAVX512(dst, src *float32, run, count, dstStride, srcStride int)
//
// copyRunsAVX512 (copyruns_amd64.s) with dst += src: for each of count
// runs, run floats 16 at a time, the last block under the mask K1 (the
// low run%16 bits); then dst += dstStride, src += srcStride (floats).
// run >= 1, count >= 1.
TEXT ·addRunsAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ run+16(FP), DX
	MOVQ count+24(FP), BX
	MOVQ dstStride+32(FP), R8
	MOVQ srcStride+40(FP), R9
	SHLQ $2, R8
	SHLQ $2, R9
	MOVQ DX, CX
	ANDQ $15, CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	MOVQ DX, R10
	ANDQ $-16, R10

runloop:
	MOVQ DI, R11
	MOVQ SI, R12
	MOVQ R10, CX

full:
	CMPQ CX, $0
	JEQ tail
	VMOVUPS (R12), Z0
	VADDPS  (R11), Z0, Z0
	VMOVUPS Z0, (R11)
	ADDQ $64, R11
	ADDQ $64, R12
	SUBQ $16, CX
	JMP full

tail:
	KORTESTW K1, K1
	JZ next
	VMOVUPS.Z (R12), K1, Z0
	VMOVUPS.Z (R11), K1, Z1
	VADDPS  Z0, Z1, Z1
	VMOVUPS Z1, K1, (R11)

next:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ BX
	JNZ runloop
	VZEROUPPER
	RET

// func cartesianAddAVX512(dst *float32, ldd int, row, col *float64, count, cout int)
//
// For each of count pixels, the cout channels 8 at a time (the last block
// under the mask K1, the low cout%8 bits): VADDPD of row and col, VCVTPD2PS
// (to nearest even), VADDPS to dst; then dst += ldd floats, col += cout
// float64s. count >= 1, cout >= 1.
TEXT ·cartesianAddAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ row+16(FP), SI
	MOVQ col+24(FP), DX
	MOVQ count+32(FP), BX
	MOVQ cout+40(FP), R9
	MOVQ R9, CX
	ANDQ $7, CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	MOVQ R9, R10
	ANDQ $-8, R10

pixel:
	MOVQ DI, R11
	MOVQ SI, R12
	MOVQ R10, CX

full:
	CMPQ CX, $0
	JEQ tail
	VMOVUPD   (R12), Z0
	VADDPD    (DX), Z0, Z0
	VCVTPD2PS Z0, Y1
	VADDPS    (R11), Y1, Y1
	VMOVUPS   Y1, (R11)
	ADDQ $32, R11
	ADDQ $64, R12
	ADDQ $64, DX
	SUBQ $8, CX
	JMP full

tail:
	KORTESTW K1, K1
	JZ next
	VMOVUPD.Z (R12), K1, Z0
	VMOVUPD.Z (DX), K1, Z2
	VADDPD    Z2, Z0, Z0
	VCVTPD2PS Z0, Y1
	VMOVUPS.Z (R11), K1, Y3
	VADDPS    Y1, Y3, Y3
	VMOVUPS   Y3, K1, (R11)
	MOVQ R9, AX
	ANDQ $7, AX
	SHLQ $3, AX
	ADDQ AX, DX

next:
	ADDQ R8, DI
	DECQ BX
	JNZ pixel
	VZEROUPPER
	RET

// func sumRunsAVX512(dst, src *float32, run, count, srcStride int)
//
// AddRuns with dstStride 0: for each chunk of 16 floats of the run (the
// last under the mask K1 of its run%16 floats), dst's chunk in Z1 gets
// the count runs of src added in order (VADDPS), then is stored once.
// run >= 1, count >= 1.
TEXT ·sumRunsAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ run+16(FP), DX
	MOVQ count+24(FP), BX
	MOVQ srcStride+32(FP), R9
	SHLQ $2, R9

chunk:
	CMPQ DX, $0
	JLE  done
	CHUNK_MASK(DX)
	VMOVUPS.Z (DI), K1, Z1
	MOVQ      SI, R11
	MOVQ      BX, CX

runloop:
	VMOVUPS.Z (R11), K1, Z0
	VADDPS    Z0, Z1, Z1
	ADDQ      R9, R11
	DECQ      CX
	JNZ       runloop
	VMOVUPS   Z1, K1, (DI)
	ADDQ      $64, DI
	ADDQ      $64, SI
	SUBQ      $16, DX
	JMP       chunk

done:
	VZEROUPPER
	RET
