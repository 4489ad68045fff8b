#!/usr/bin/python3
"""Golden local-alignment scores from Biopython (Debian python3-biopython).

Every pair of sequences.tsv (id, sequence; real chains of the bundled
mirror: two copies, and pairs the sets package found related) is aligned
locally with PairwiseAligner under BLOSUM62, a gap of k positions
costing 11 + k (open -12, extend -1), and its optimal score written to
local_golden.tsv: id_a, id_b, score.
Run from seqalign/testdata: /usr/bin/python3 make-golden.py
"""
import itertools
from Bio import Align
from Bio.Align import substitution_matrices

al = Align.PairwiseAligner()
al.mode = "local"
al.substitution_matrix = substitution_matrices.load("BLOSUM62")
al.open_gap_score = -12
al.extend_gap_score = -1
seqs = [l.rstrip("\n").split("\t") for l in open("sequences.tsv") if l.strip()]
with open("local_golden.tsv", "w") as out:
    for (ia, a), (ib, b) in itertools.combinations(seqs, 2):
        out.write("%s\t%s\t%d\n" % (ia, ib, al.score(a, b)))
