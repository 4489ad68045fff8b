#!/usr/bin/env python3
"""Independent reference fit of the pseudo-likelihood Potts model of
pipeline/potts, written from the objective's definition (not from the Go
code), with numpy and scipy's L-BFGS-B.

    python3 reference_plm.py golden.aln > golden_scores.tsv

Model: 21 states in CCMpred's order "ARNDCQEGHILKMFPSTWYV-", other letters
(B J O U X Z) as the gap; sequence weights 1/(1 + #{others sharing more than
ceil(0.8 L) states}) (CCMpred); f = sum_n w_n sum_i [log Z_i(n) - E_i(x_ni|n)]
+ 0.01 |h|^2 + 0.2 (L-1) sum_{i<j} |J_ij|^2; score = Frobenius norm of
J_ij over the 20 amino acids, APC-corrected.

Output: comment lines (#) with N, L, Neff and f at the minimum, then
"i j score raw" for i < j (0-based), tab-separated.
"""
import math
import sys

import numpy as np
from scipy.optimize import minimize

ALPHABET = "ARNDCQEGHILKMFPSTWYV-"
Q = 21


def encode(rows):
    code = {c: k for k, c in enumerate(ALPHABET[:20])}
    return np.array([[code.get(c, 20) for c in r] for r in rows], dtype=np.int64)


def weights(x):
    n, l = x.shape
    thres = math.ceil(0.8 * l)
    ids = (x[:, None, :] == x[None, :, :]).sum(-1)
    similar = (ids > thres).sum(1) - 1  # not itself
    return 1.0 / (1.0 + similar)


def main():
    rows = [line.strip() for line in open(sys.argv[1]) if line.strip()]
    x = encode(rows)
    n, l = x.shape
    w = weights(x)
    lam_h, lam_j = 0.01, 0.2 * (l - 1)
    onehot = np.eye(Q)[x]  # n, l, q
    iu, ju = np.triu_indices(l, 1)
    npair = len(iu)
    nh = l * Q

    def unpack(theta):
        h = theta[:nh].reshape(l, Q)
        blk = theta[nh:].reshape(npair, Q, Q)
        jfull = np.zeros((l, l, Q, Q))
        jfull[iu, ju] = blk
        jfull[ju, iu] = blk.transpose(0, 2, 1)
        return h, blk, jfull

    def fg(theta):
        h, blk, jfull = unpack(theta)
        e = h[None] + np.einsum("ijab,njb->nia", jfull, onehot)
        m = e.max(-1, keepdims=True)
        z = np.exp(e - m)
        s = z.sum(-1, keepdims=True)
        logz = np.log(s)[..., 0] + m[..., 0]
        eobs = (e * onehot).sum(-1)
        f = (w[:, None] * (logz - eobs)).sum() + lam_h * (h ** 2).sum() + lam_j * (blk ** 2).sum()
        p = z / s
        d = w[:, None, None] * (p - onehot)
        gh = d.sum(0) + 2 * lam_h * h
        gfull = np.einsum("nia,njb->ijab", d, onehot)
        gblk = gfull[iu, ju] + gfull[ju, iu].transpose(0, 2, 1) + 2 * lam_j * blk
        return f, np.concatenate([gh.ravel(), gblk.ravel()])

    theta0 = np.zeros(nh + npair * Q * Q)
    res = minimize(fg, theta0, jac=True, method="L-BFGS-B",
                   options={"maxiter": 20000, "maxcor": 20, "ftol": 1e-16, "gtol": 1e-10, "maxfun": 100000})
    h, blk, jfull = unpack(res.x)
    raw = np.sqrt((jfull[:, :, :20, :20] ** 2).sum((2, 3)))
    np.fill_diagonal(raw, 0)
    rowmean = raw.sum(1) / (l - 1)
    allmean = raw.sum() / (l * (l - 1))
    apc = raw - np.outer(rowmean, rowmean) / allmean
    np.fill_diagonal(apc, 0)
    gmax = np.abs(fg(res.x)[1]).max()
    print("# reference_plm.py (numpy %s, scipy L-BFGS-B): %s" % (np.__version__, res.message))
    print("# N %d L %d Neff %.10f f %.10f iterations %d max|grad| %.3g" % (n, l, w.sum(), res.fun, res.nit, gmax))
    for i, j in zip(iu, ju):
        print("%d\t%d\t%.10f\t%.10f" % (i, j, apc[i, j], raw[i, j]))


if __name__ == "__main__":
    main()
