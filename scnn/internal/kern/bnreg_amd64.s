//go:build amd64 && !purego

#include "textflag.h"

// The float64 sums of bn.go and axpy.go for c <= 32 channels, with the
// sums in registers for the whole loop over pixels instead of read and
// written back per pixel. The loops in bn_amd64.s and axpy_amd64.s chain
// each pixel's add to the previous one's through a store and a load;
// here the chain is one register add. The per-element operations and
// their order are those of the loops in bn.go and axpy.go (each lane
// sums its pixels in q order), so the bits are the same.
//
// The c channels are nch = ceil(c/8) chunks of 8 float64 lanes; chunk j
// (j < nch) works under mask register K(j+1), its low 8 bits taken from
// byte j of masks (0xFF for a full chunk, the tail's lanes for the
// last). Lanes past c are loaded as zero and never stored. Per pixel,
// chunks 2-4 run only when nch reaches them (predictable branches).

// SETMASKS(m) sets K1-K4 from the bytes of m. It uses AX.
#define SETMASKS(m) \
	MOVQ m, AX; ANDQ $0xFF, AX; KMOVW AX, K1; \
	MOVQ m, AX; SHRQ $8, AX; ANDQ $0xFF, AX; KMOVW AX, K2; \
	MOVQ m, AX; SHRQ $16, AX; ANDQ $0xFF, AX; KMOVW AX, K3; \
	MOVQ m, AX; SHRQ $24, AX; ANDQ $0xFF, AX; KMOVW AX, K4

// func bnVarSumsRegAVX512(acc, mean *float64, w, x *float32, n, c, nch int, masks uint64)
//
// for q < n, w[q] != 0; k < c: d := float64(x[q*c+k]) - mean[k];
// acc[k] += (float64(w[q])*d)*d. Sums Z8-Z11, means Z16-Z19.
TEXT ·bnVarSumsRegAVX512(SB), NOSPLIT, $0-64
	MOVQ acc+0(FP), DI
	MOVQ mean+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ x+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ c+40(FP), R10
	SHLQ $2, R10
	MOVQ nch+48(FP), DX
	MOVQ masks+56(FP), R11
	SETMASKS(R11)
	VXORPS X2, X2, X2
	VMOVUPD.Z (DI), K1, Z8
	VMOVUPD.Z (SI), K1, Z16
	VMOVUPD.Z 64(DI), K2, Z9
	VMOVUPD.Z 64(SI), K2, Z17
	VMOVUPD.Z 128(DI), K3, Z10
	VMOVUPD.Z 128(SI), K3, Z18
	VMOVUPD.Z 192(DI), K4, Z11
	VMOVUPD.Z 192(SI), K4, Z19

#define VARCHUNK(off, K, ACC, MEAN) \
	VCVTPS2PD.Z off(R9), K, Z1; \
	VSUBPD MEAN, Z1, Z1; \
	VMULPD Z1, Z0, Z3; \
	VMULPD Z1, Z3, Z3; \
	VADDPD Z3, ACC, ACC

vrq:
	VMOVSS (R8), X0
	VUCOMISS X2, X0
	JNE vrrow
	JP vrrow
	JMP vrnext

vrrow:
	VCVTSS2SD X0, X0, X0
	VBROADCASTSD X0, Z0
	VARCHUNK(0, K1, Z8, Z16)
	CMPQ DX, $2
	JLT vrnext
	VARCHUNK(32, K2, Z9, Z17)
	CMPQ DX, $3
	JLT vrnext
	VARCHUNK(64, K3, Z10, Z18)
	CMPQ DX, $4
	JLT vrnext
	VARCHUNK(96, K4, Z11, Z19)

vrnext:
	ADDQ $4, R8
	ADDQ R10, R9
	DECQ CX
	JNZ vrq
	VMOVUPD Z8, K1, (DI)
	VMOVUPD Z9, K2, 64(DI)
	VMOVUPD Z10, K3, 128(DI)
	VMOVUPD Z11, K4, 192(DI)
	VZEROUPPER
	RET

// func bnBackSumsRegAVX512(sdy, sdyxh *float64, w, dy, x, mean, inv *float32, n, c, nch int, masks uint64)
//
// for q < n, w[q] != 0; k < c: g := float64(w[q])*float64(dy[q*c+k]);
// sdy[k] += g; xh := (x[q*c+k]-mean[k])*inv[k] in float32;
// sdyxh[k] += g*float64(xh). sdy Z8-Z11, sdyxh Z12-Z15, mean Y16-Y19,
// inv Y20-Y23.
TEXT ·bnBackSumsRegAVX512(SB), NOSPLIT, $0-88
	MOVQ sdy+0(FP), DI
	MOVQ sdyxh+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ dy+24(FP), R9
	MOVQ x+32(FP), BX
	MOVQ mean+40(FP), R12
	MOVQ inv+48(FP), R13
	MOVQ n+56(FP), CX
	MOVQ c+64(FP), R10
	SHLQ $2, R10
	MOVQ nch+72(FP), DX
	MOVQ masks+80(FP), R11
	SETMASKS(R11)
	VXORPS X2, X2, X2
	VMOVUPD.Z (DI), K1, Z8
	VMOVUPD.Z (SI), K1, Z12
	VMOVUPS.Z (R12), K1, Z16
	VMOVUPS.Z (R13), K1, Z20
	VMOVUPD.Z 64(DI), K2, Z9
	VMOVUPD.Z 64(SI), K2, Z13
	VMOVUPS.Z 32(R12), K2, Z17
	VMOVUPS.Z 32(R13), K2, Z21
	VMOVUPD.Z 128(DI), K3, Z10
	VMOVUPD.Z 128(SI), K3, Z14
	VMOVUPS.Z 64(R12), K3, Z18
	VMOVUPS.Z 64(R13), K3, Z22
	VMOVUPD.Z 192(DI), K4, Z11
	VMOVUPD.Z 192(SI), K4, Z15
	VMOVUPS.Z 96(R12), K4, Z19
	VMOVUPS.Z 96(R13), K4, Z23

#define BACKCHUNK(off, K, SDY, SDYXH, MEAN, INV) \
	VCVTPS2PD.Z off(R9), K, Z1; \
	VMULPD Z1, Z0, Z1; \
	VADDPD Z1, SDY, SDY; \
	VMOVUPS.Z off(BX), K, Z5; \
	VSUBPS MEAN, Y5, Y5; \
	VMULPS INV, Y5, Y5; \
	VCVTPS2PD Y5, Z5; \
	VMULPD Z5, Z1, Z5; \
	VADDPD Z5, SDYXH, SDYXH

brq:
	VMOVSS (R8), X0
	VUCOMISS X2, X0
	JNE brrow
	JP brrow
	JMP brnext

brrow:
	VCVTSS2SD X0, X0, X0
	VBROADCASTSD X0, Z0
	BACKCHUNK(0, K1, Z8, Z12, Y16, Y20)
	CMPQ DX, $2
	JLT brnext
	BACKCHUNK(32, K2, Z9, Z13, Y17, Y21)
	CMPQ DX, $3
	JLT brnext
	BACKCHUNK(64, K3, Z10, Z14, Y18, Y22)
	CMPQ DX, $4
	JLT brnext
	BACKCHUNK(96, K4, Z11, Z15, Y19, Y23)

brnext:
	ADDQ $4, R8
	ADDQ R10, R9
	ADDQ R10, BX
	DECQ CX
	JNZ brq
	VMOVUPD Z8, K1, (DI)
	VMOVUPD Z12, K1, (SI)
	VMOVUPD Z9, K2, 64(DI)
	VMOVUPD Z13, K2, 64(SI)
	VMOVUPD Z10, K3, 128(DI)
	VMOVUPD Z14, K3, 128(SI)
	VMOVUPD Z11, K4, 192(DI)
	VMOVUPD Z15, K4, 192(SI)
	VZEROUPPER
	RET

// func axpyRowsF64RegAVX512(r *float64, x *float32, nx int, w *float32, cout, nch int, masks uint64)
//
// for q < nx, x[q] != 0; o < cout: r[o] += float64(x[q])*float64(w[q*cout+o]).
// Sums Z8-Z11.
TEXT ·axpyRowsF64RegAVX512(SB), NOSPLIT, $0-56
	MOVQ r+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ nx+16(FP), CX
	MOVQ w+24(FP), R8
	MOVQ cout+32(FP), R9
	SHLQ $2, R9
	MOVQ nch+40(FP), DX
	MOVQ masks+48(FP), R11
	SETMASKS(R11)
	VXORPS X2, X2, X2
	VMOVUPD.Z (DI), K1, Z8
	VMOVUPD.Z 64(DI), K2, Z9
	VMOVUPD.Z 128(DI), K3, Z10
	VMOVUPD.Z 192(DI), K4, Z11

#define AXPYCHUNK(off, K, ACC) \
	VCVTPS2PD.Z off(R8), K, Z1; \
	VMULPD Z1, Z0, Z1; \
	VADDPD Z1, ACC, ACC

arq:
	VMOVSS (SI), X0
	VUCOMISS X2, X0
	JNE arrow
	JP arrow
	JMP arnext

arrow:
	VCVTSS2SD X0, X0, X0
	VBROADCASTSD X0, Z0
	AXPYCHUNK(0, K1, Z8)
	CMPQ DX, $2
	JLT arnext
	AXPYCHUNK(32, K2, Z9)
	CMPQ DX, $3
	JLT arnext
	AXPYCHUNK(64, K3, Z10)
	CMPQ DX, $4
	JLT arnext
	AXPYCHUNK(96, K4, Z11)

arnext:
	ADDQ $4, SI
	ADDQ R9, R8
	DECQ CX
	JNZ arq
	VMOVUPD Z8, K1, (DI)
	VMOVUPD Z9, K2, 64(DI)
	VMOVUPD Z10, K3, 128(DI)
	VMOVUPD Z11, K4, 192(DI)
	VZEROUPPER
	RET

// func prefixSumsF64RegAVX512(pre *float64, x *float32, n, c, nch int, masks uint64)
//
// for j < n; k < c: pre[(j+1)*c+k] = pre[j*c+k] + float64(x[j*c+k]).
// The running sums (from pre's first row) in Z8-Z11.
TEXT ·prefixSumsF64RegAVX512(SB), NOSPLIT, $0-48
	MOVQ pre+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), R10
	MOVQ nch+32(FP), DX
	MOVQ masks+40(FP), R11
	SETMASKS(R11)
	VMOVUPD.Z (DI), K1, Z8
	VMOVUPD.Z 64(DI), K2, Z9
	VMOVUPD.Z 128(DI), K3, Z10
	VMOVUPD.Z 192(DI), K4, Z11
	LEAQ (DI)(R10*8), DI
	SHLQ $2, R10

#define PREFIXCHUNK(xoff, poff, K, ACC) \
	VCVTPS2PD.Z xoff(SI), K, Z1; \
	VADDPD Z1, ACC, ACC; \
	VMOVUPD ACC, K, poff(DI)

pfj:
	PREFIXCHUNK(0, 0, K1, Z8)
	CMPQ DX, $2
	JLT pfnext
	PREFIXCHUNK(32, 64, K2, Z9)
	CMPQ DX, $3
	JLT pfnext
	PREFIXCHUNK(64, 128, K3, Z10)
	CMPQ DX, $4
	JLT pfnext
	PREFIXCHUNK(96, 192, K4, Z11)

pfnext:
	ADDQ R10, SI
	LEAQ (DI)(R10*2), DI
	DECQ CX
	JNZ pfj
	VZEROUPPER
	RET
