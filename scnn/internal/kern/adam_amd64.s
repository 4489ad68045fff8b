//go:build amd64 && !purego

#include "textflag.h"

// func adamAVX512(val, grad, m, v *float32, n int, decay bool, l2, b1, omb1, b2, omb2 float32, c1, c2, lr, eps float64)
//
// AdamUpdate (adam.go) 8 elements at a time: the float32 steps on Y
// registers, the float64 ones on Z, the last n%8 under the mask K7.
// Each operation is the loop's, in its order, rounded (no FMA); the
// flushes multiply the lanes with |x| < t by 0 (merge-masked).
TEXT ·adamAVX512(SB), NOSPLIT, $0-96
	MOVQ val+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ n+32(FP), BX
	MOVBQZX decay+40(FP), R10
	VBROADCASTSS l2+44(FP), Y20
	VBROADCASTSS b1+48(FP), Y21
	VBROADCASTSS omb1+52(FP), Y22
	VBROADCASTSS b2+56(FP), Y23
	VBROADCASTSS omb2+60(FP), Y24
	VBROADCASTSD c1+64(FP), Z28
	VBROADCASTSD c2+72(FP), Z29
	VBROADCASTSD lr+80(FP), Z30
	VBROADCASTSD eps+88(FP), Z31
	MOVL $0x00800000, AX // 2^-126
	VPBROADCASTD AX, Y25
	MOVL $0x0d800000, AX // 2^-100
	VPBROADCASTD AX, Y26
	MOVL $0x7fffffff, AX
	VPBROADCASTD AX, Y27
	VXORPS Y19, Y19, Y19 // zeros

adamblock:
	// K7: the elements of this block, min(8, BX).
	MOVQ $8, CX
	CMPQ BX, CX
	CMOVQLT BX, CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K7

	VMOVUPS.Z (SI), K7, Y0 // g
	VMOVUPS.Z (DI), K7, Y1 // val
	TESTQ R10, R10
	JZ adamnodecay
	VMULPS Y1, Y20, Y2
	VADDPS Y2, Y0, Y0 // g + l2*val

adamnodecay:
	// m = flush(b1*m + omb1*g)
	VMOVUPS.Z (R8), K7, Y3
	VMULPS Y3, Y21, Y3
	VMULPS Y0, Y22, Y4
	VADDPS Y4, Y3, Y3
	VANDPS Y27, Y3, Y5
	VCMPPS $1, Y25, Y5, K1 // |m| < 2^-126
	VMULPS Y19, Y3, K1, Y3
	VMOVUPS Y3, K7, (R8)
	// v = flush(b2*v + (omb2*g)*g)
	VMOVUPS.Z (R9), K7, Y6
	VMULPS Y6, Y23, Y6
	VMULPS Y0, Y24, Y7
	VMULPS Y0, Y7, Y7
	VADDPS Y7, Y6, Y6
	VANDPS Y27, Y6, Y5
	VCMPPS $1, Y25, Y5, K1
	VMULPS Y19, Y6, K1, Y6
	VMOVUPS Y6, K7, (R9)
	// upd = float32(lr*(m/c1) / (sqrt(v/c2) + eps))
	VCVTPS2PD Y3, Z8
	VDIVPD Z28, Z8, Z8
	VMULPD Z8, Z30, Z8
	VCVTPS2PD Y6, Z9
	VDIVPD Z29, Z9, Z9
	VSQRTPD Z9, Z9
	VADDPD Z31, Z9, Z9
	VDIVPD Z9, Z8, Z8
	VCVTPD2PS Z8, Y10
	// val = flush(val - upd, 2^-100)
	VSUBPS Y10, Y1, Y1
	VANDPS Y27, Y1, Y5
	VCMPPS $1, Y26, Y5, K1
	VMULPS Y19, Y1, K1, Y1
	VMOVUPS Y1, K7, (DI)

	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	SUBQ $8, BX
	JG adamblock
	VZEROUPPER
	RET
