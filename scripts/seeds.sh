#!/usr/bin/env bash
# Runs a training command for every model kind in KINDS and seed
# SEED_FROM..SEEDS (default 1..5),
# one run directory each (RUNS/KIND-seedSEED, log beside it), PARALLEL runs
# at a time, resuming any run a killed earlier invocation left (finished
# runs return at once):
#
#   KINDS="cosrec scosrec" RUNS=runs/rec scripts/seeds.sh rec train --epochs 40 --workers 1
#
# runs "$CONTACTMAP rec train --epochs 40 --workers 1 --model KIND --seed
# SEED --out RUNS/KIND-seedSEED [--resume]" for each (output appended to
# RUNS/KIND-seedSEED.log, so a resumed run keeps its history). Exits non-zero if a
# run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-5}
SEED_FROM=${SEED_FROM:-1}
RUNS=${RUNS:?RUNS must name the runs directory}
KINDS=${KINDS:?KINDS must list the model kinds}
PARALLEL=${PARALLEL:-1}
CONTACTMAP=${CONTACTMAP:-./contactmap}
[ $# -gt 0 ] || { echo "usage: KINDS=... RUNS=... scripts/seeds.sh COMMAND [FLAGS]" >&2; exit 2; }
mkdir -p "$RUNS"
one() {
	local kind=$1 seed=$2 out="$RUNS/$1-seed$2" resume=()
	shift 2
	[ -f "$out/checkpoint.scnn" ] && resume=(--resume)
	if "$CONTACTMAP" "$@" --model "$kind" --seed "$seed" --out "$out" "${resume[@]}" >> "$out.log" 2>&1; then
		tail -n 1 "$out.log"
	else
		echo "seeds: $kind seed $seed failed, see $out.log" >&2
		return 1
	fi
}
status=0 running=0
for seed in $(seq "$SEED_FROM" "$SEEDS"); do
	for kind in $KINDS; do
		one "$kind" "$seed" "$@" &
		running=$((running + 1))
		if [ "$running" -ge "$PARALLEL" ]; then
			wait -n || status=1
			running=$((running - 1))
		fi
	done
done
while [ "$running" -gt 0 ]; do
	wait -n || status=1
	running=$((running - 1))
done
exit $status
