#!/usr/bin/env bash
# Peak memory (GNU time's max RSS) and wall time of `contactmap predict` on
# one random protein sequence per length, for each model: docs/predict.md's
# table. Sequences come from awk's generator with a fixed seed, so every
# run predicts the same ones. Needs GNU time (/usr/bin/time, Debian
# package "time").
#   MODELS="ensemble scnn cnn" LENGTHS="100 300 500" scripts/predict-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CONTACTMAP=${CONTACTMAP:-./contactmap}
MODELS=${MODELS:-ensemble scnn cnn}
LENGTHS=${LENGTHS:-100 300 500}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| model |'
for l in $LENGTHS; do printf ' L = %s |' "$l"; done
printf '\n|---|'
for l in $LENGTHS; do printf -- '---:|'; done
printf '\n'
for m in $MODELS; do
	printf '| %s |' "$m"
	for l in $LENGTHS; do
		awk -v n="$l" 'BEGIN { srand(1); a = "ACDEFGHIKLMNPQRSTVWY"; s = "";
			for (i = 0; i < n; i++) s = s substr(a, int(rand() * 20) + 1, 1); print ">random" n; print s }' >"$tmp/seq.fasta"
		/usr/bin/time -f '%M %e' -o "$tmp/time" "$CONTACTMAP" predict --model "$m" --format npy --force --out "$tmp/out" "$tmp/seq.fasta" >/dev/null 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; exit 1; }
		read -r kb secs <"$tmp/time"
		printf ' %d MB, %s s |' $((kb / 1024)) "$secs"
	done
	printf '\n'
done
