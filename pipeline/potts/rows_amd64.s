//go:build amd64 && !purego

#include "textflag.h"

// func gatherTileAVX512(e *float64, jt *float32, off *int32, n, t int)
// For s in [0, n): e[s*24 : s*24+24] += float64(jt[o : o+24]) for
// o = off[k*n+s], k in [0, t), one row after the other.
TEXT ·gatherTileAVX512(SB), NOSPLIT, $0-40
	MOVQ e+0(FP), DI
	MOVQ jt+8(FP), SI
	MOVQ off+16(FP), BX
	MOVQ n+24(FP), CX
	MOVQ t+32(FP), DX
	MOVQ CX, R8
	SHLQ $2, R8 // bytes between a sequence's offsets in two columns

gather512seq:
	VMOVUPD 0(DI), Z0
	VMOVUPD 64(DI), Z1
	VMOVUPD 128(DI), Z2
	MOVQ BX, R9
	MOVQ DX, R10

gather512col:
	MOVLQSX 0(R9), AX
	VCVTPS2PD 0(SI)(AX*4), Z3
	VCVTPS2PD 32(SI)(AX*4), Z4
	VCVTPS2PD 64(SI)(AX*4), Z5
	VADDPD Z3, Z0, Z0
	VADDPD Z4, Z1, Z1
	VADDPD Z5, Z2, Z2
	ADDQ R8, R9
	DECQ R10
	JNZ gather512col

	VMOVUPD Z0, 0(DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	ADDQ $192, DI
	ADDQ $4, BX
	DECQ CX
	JNZ gather512seq
	VZEROUPPER
	RET

// func scatterColumnAVX512(grad *float64, perm *int32, bounds *int32, res *float64, add int)
// For b in [0, 21): g[b*24 : b*24+24] = (add != 0 ? g[b*24 : b*24+24] :
// +0) + r[o : o+24] summed over o in perm[bounds[b]:bounds[b+1]] in
// order, the row held in registers.
TEXT ·scatterColumnAVX512(SB), NOSPLIT, $0-40
	MOVQ grad+0(FP), DI
	MOVQ perm+8(FP), BX
	MOVQ bounds+16(FP), DX
	MOVQ res+24(FP), SI
	MOVQ add+32(FP), R11
	MOVQ $21, CX

scatter512state:
	TESTQ R11, R11
	JNZ scatter512load
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	JMP scatter512bounds

scatter512load:
	VMOVUPD 0(DI), Z0
	VMOVUPD 64(DI), Z1
	VMOVUPD 128(DI), Z2

scatter512bounds:
	MOVLQSX 0(DX), R9
	MOVLQSX 4(DX), R10
	CMPQ R9, R10
	JGE scatter512store

scatter512seq:
	MOVLQSX 0(BX)(R9*4), AX
	VADDPD 0(SI)(AX*8), Z0, Z0
	VADDPD 64(SI)(AX*8), Z1, Z1
	VADDPD 128(SI)(AX*8), Z2, Z2
	INCQ R9
	CMPQ R9, R10
	JLT scatter512seq

scatter512store:
	VMOVUPD Z0, 0(DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	ADDQ $192, DI
	ADDQ $4, DX
	DECQ CX
	JNZ scatter512state
	VZEROUPPER
	RET

// func gatherTileAVX2(e *float64, jt *float32, off *int32, n, t int)
TEXT ·gatherTileAVX2(SB), NOSPLIT, $0-40
	MOVQ e+0(FP), DI
	MOVQ jt+8(FP), SI
	MOVQ off+16(FP), BX
	MOVQ n+24(FP), CX
	MOVQ t+32(FP), DX
	MOVQ CX, R8
	SHLQ $2, R8

gather2seq:
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	VMOVUPD 128(DI), Y4
	VMOVUPD 160(DI), Y5
	MOVQ BX, R9
	MOVQ DX, R10

gather2col:
	MOVLQSX 0(R9), AX
	VCVTPS2PD 0(SI)(AX*4), Y6
	VCVTPS2PD 16(SI)(AX*4), Y7
	VCVTPS2PD 32(SI)(AX*4), Y8
	VCVTPS2PD 48(SI)(AX*4), Y9
	VCVTPS2PD 64(SI)(AX*4), Y10
	VCVTPS2PD 80(SI)(AX*4), Y11
	VADDPD Y6, Y0, Y0
	VADDPD Y7, Y1, Y1
	VADDPD Y8, Y2, Y2
	VADDPD Y9, Y3, Y3
	VADDPD Y10, Y4, Y4
	VADDPD Y11, Y5, Y5
	ADDQ R8, R9
	DECQ R10
	JNZ gather2col

	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	ADDQ $192, DI
	ADDQ $4, BX
	DECQ CX
	JNZ gather2seq
	VZEROUPPER
	RET

// func scatterColumnAVX2(grad *float64, perm *int32, bounds *int32, res *float64, add int)
TEXT ·scatterColumnAVX2(SB), NOSPLIT, $0-40
	MOVQ grad+0(FP), DI
	MOVQ perm+8(FP), BX
	MOVQ bounds+16(FP), DX
	MOVQ res+24(FP), SI
	MOVQ add+32(FP), R11
	MOVQ $21, CX

scatter2state:
	TESTQ R11, R11
	JNZ scatter2load
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	JMP scatter2bounds

scatter2load:
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	VMOVUPD 128(DI), Y4
	VMOVUPD 160(DI), Y5

scatter2bounds:
	MOVLQSX 0(DX), R9
	MOVLQSX 4(DX), R10
	CMPQ R9, R10
	JGE scatter2store

scatter2seq:
	MOVLQSX 0(BX)(R9*4), AX
	VADDPD 0(SI)(AX*8), Y0, Y0
	VADDPD 32(SI)(AX*8), Y1, Y1
	VADDPD 64(SI)(AX*8), Y2, Y2
	VADDPD 96(SI)(AX*8), Y3, Y3
	VADDPD 128(SI)(AX*8), Y4, Y4
	VADDPD 160(SI)(AX*8), Y5, Y5
	INCQ R9
	CMPQ R9, R10
	JLT scatter2seq

scatter2store:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	ADDQ $192, DI
	ADDQ $4, DX
	DECQ CX
	JNZ scatter2state
	VZEROUPPER
	RET
