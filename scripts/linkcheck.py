#!/usr/bin/env python3
"""Checks every relative link (and #anchor) in README.md, docs/*.md and
experiments/*/README.md; exits 1 when one is broken.

    python3 scripts/linkcheck.py
"""
import re, os, sys, glob
files = ['README.md'] + sorted(glob.glob('docs/*.md')) + sorted(glob.glob('experiments/*/README.md'))
def slug(h):
    h = h.strip().lower()
    h = re.sub(r'[^\w\- ]', '', h, flags=re.U)
    return h.replace(' ', '-')
def anchors(path):
    out = set(); inblock = False
    for line in open(path):
        if line.startswith('```'): inblock = not inblock
        if inblock: continue
        m = re.match(r'^#{1,6}\s+(.*)', line)
        if m: out.add(slug(m.group(1)))
    return out
bad = 0; n = 0
for f in files:
    text = open(f).read()
    text = re.sub(r'```.*?```', '', text, flags=re.S)
    for m in re.finditer(r'\]\(([^)\s]+)\)', text):
        url = m.group(1); n += 1
        if re.match(r'^[a-z]+:', url): continue
        path, _, frag = url.partition('#')
        target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(target):
            print(f"{f}: missing {url}"); bad += 1; continue
        if frag:
            if not target.endswith('.md') or frag not in anchors(target):
                print(f"{f}: bad anchor {url}"); bad += 1
print(f"{n} links checked in {len(files)} files, {bad} broken")
sys.exit(1 if bad else 0)
