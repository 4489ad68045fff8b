#!/usr/bin/env python3
"""Paired differences in F1 between the shipped RNA model and each
baseline, per group of test molecules, with 95% percentile bootstrap
intervals over molecules (10,000 resamples, seed 1), from the
per-molecule scores of `rna eval` (test-shipped.json). Standard library
only.

    python3 experiments/rna-template/paired.py experiments/rna-template/test-shipped.json
"""
import json, random, sys

d = json.load(open(sys.argv[1]))
disjoint = {o["name"] for o in d["overlaps"] if o["identity"] < 0.95}
rows = {r["name"]: {s["name"]: s for s in r["Scores"]} for r in d["rows"]}
model = "scnn template-short seed 2, greedy"
groups = {
    "16S (20)": lambda s: s["family"].startswith("16s"),
    "16S without overlap": lambda s: s["family"].startswith("16s") and s["name"] in disjoint,
    "RNase P, introns, 5S (15)": lambda s: not s["family"].startswith("16s"),
    "all 35": lambda s: True,
    "24 without overlap": lambda s: s["name"] in disjoint,
}
rng = random.Random(1)
print("| group | baseline | n | model F1 | baseline F1 | difference | 95% CI | molecules model > baseline |")
print("|---|---|---:|---:|---:|---:|---|---:|")
for g, keep in groups.items():
    for b in ["baseline: homology transfer", "baseline: MFE (Turner 2004)", "baseline: stacking"]:
        names = [n for n, s in rows[model].items() if keep(s)]
        x = [rows[model][n]["exact"]["F1"] for n in names]
        y = [rows[b][n]["exact"]["F1"] for n in names]
        diff = [a - c for a, c in zip(x, y)]
        n = len(diff)
        boots = sorted(sum(diff[rng.randrange(n)] for _ in range(n)) / n for _ in range(10000))
        lo, hi = boots[249], boots[9750]
        wins = sum(1 for v in diff if v > 0)
        print(f"| {g} | {b.split(': ')[1]} | {n} | {sum(x)/n:.3f} | {sum(y)/n:.3f} | {sum(diff)/n:+.3f} | [{lo:+.3f}, {hi:+.3f}] | {wins} |")
