#!/usr/bin/env bash
# Trains CosRec and SCosRec with seeds 1..SEEDS on MovieLens (DATA), one
# run directory each under RUNS (default runs/rec), PARALLEL runs at a
# time (each with WORKERS goroutines), resuming any run a killed earlier
# invocation left; finished runs return at once. Then "contactmap rec
# compare" evaluates every finished run on the test split once.
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-5}
RUNS=${RUNS:-runs/rec}
DATA=${DATA:-../shared/data/movielens-100k}
EPOCHS=${EPOCHS:-40}
WORKERS=${WORKERS:-1}
PARALLEL=${PARALLEL:-2}
CONTACTMAP=${CONTACTMAP:-./contactmap}
mkdir -p "$RUNS"
one() {
	local kind=$1 seed=$2 out="$RUNS/$1-seed$2" resume=()
	[ -f "$out/checkpoint.scnn" ] && resume=(--resume)
	"$CONTACTMAP" rec train --data "$DATA" --model "$kind" --seed "$seed" --workers "$WORKERS" \
		--epochs "$EPOCHS" --out "$out" "${resume[@]}" > "$out.log" 2>&1 || { echo "rec-seeds: $kind seed $seed failed, see $out.log" >&2; return 1; }
	tail -1 "$out.log"
}
jobs=()
for seed in $(seq 1 "$SEEDS"); do
	for kind in cosrec scosrec; do
		jobs+=("$kind $seed")
	done
done
status=0
running=0
for j in "${jobs[@]}"; do
	one $j &
	running=$((running + 1))
	if [ "$running" -ge "$PARALLEL" ]; then
		wait -n || status=1
		running=$((running - 1))
	fi
done
while [ "$running" -gt 0 ]; do
	wait -n || status=1
	running=$((running - 1))
done
exit $status
