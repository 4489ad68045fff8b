#!/usr/bin/python3
"""Write golden contact lists with Biopython (Debian python3-biopython).

For each (file, chain): residues of the first model that are amino acids
with a CA atom, in file order; pairs i<j with CA-CA distance < 8 A (and,
for the CB lists, CB-CB distance < 8 A, glycine by CA, and a virtual CB
from N, CA and C where the file has no CB).
Output lines: "seq1 icode1 seq2 icode2" (icode '_' when blank).
Run from pdb/testdata: /usr/bin/python3 make-golden.py
"""
import gzip, itertools
import numpy as np
from Bio.PDB import PDBParser, MMCIFParser, is_aa

CASES = [("pdb1enh.ent.gz", "A"), ("pdb3a1g.ent.gz", "A"), ("pdb3a1g.ent.gz", "B"), ("1A8O.cif.gz", "A")]

def vcb(n, ca, c):
    b, cc = ca - n, c - ca
    a = np.cross(b, cc)
    return -0.58273431 * a + 0.56802827 * b - 0.54067466 * cc + ca

for fname, chain in CASES:
    parser = MMCIFParser(QUIET=True) if ".cif" in fname else PDBParser(QUIET=True)
    with gzip.open(fname, "rt") as fh:
        s = parser.get_structure("x", fh)
    res = [r for r in s[0][chain] if is_aa(r, standard=False) and "CA" in r]
    for kind in ("CA", "CB"):
        pts, ids = [], []
        for r in res:
            if kind == "CB" and r.get_resname() != "GLY" and "CB" in r:
                p = r["CB"].coord.astype(float)
            elif kind == "CB" and r.get_resname() != "GLY":
                if not all(a in r for a in ("N", "C")):
                    continue
                p = vcb(r["N"].coord.astype(float), r["CA"].coord.astype(float), r["C"].coord.astype(float))
            else:
                p = r["CA"].coord.astype(float)
            pts.append(p)
            ids.append("%d %s" % (r.id[1], r.id[2].strip() or "_"))
        out = []
        for i, j in itertools.combinations(range(len(pts)), 2):
            if np.linalg.norm(pts[i] - pts[j]) < 8.0:
                out.append("%s %s\n" % (ids[i], ids[j]))
        base = fname.split(".")[0]
        with open("golden/%s_%s.%s.txt" % (base, chain, kind), "w") as fh:
            fh.writelines(out)
        print(fname, chain, kind, len(ids), "residues", len(out), "contacts")
