#!/usr/bin/env bash
# Trains the default CNN and SCNN with seeds 1..SEEDS on the PISCES split
# (features/), one run directory each under RUNS (default runs/compare),
# resuming any run a killed earlier invocation left. Idempotent: finished
# runs return at once. The evidence for CNN vs SCNN (issue 14) is built on
# these runs. CONFIG=paper trains the paper-size models; BUDGET (e.g. 90m)
# bounds each run's training time across its sessions.
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-5}
RUNS=${RUNS:-runs/compare}
FEATURES=${FEATURES:-features}
EPOCHS=${EPOCHS:-30}
WORKERS=${WORKERS:-2}
CONTACTMAP=${CONTACTMAP:-./contactmap}
CONFIG=${CONFIG:-default}
BUDGET=${BUDGET:-0}
for seed in $(seq 1 "$SEEDS"); do
	for kind in cnn scnn; do
		out="$RUNS/$kind-seed$seed"
		resume=()
		[ -f "$out/checkpoint.scnn" ] && resume=(--resume)
		"$CONTACTMAP" train --features "$FEATURES" --model "$kind" --config "$CONFIG" --seed "$seed" --workers "$WORKERS" \
			--epochs "$EPOCHS" --budget "$BUDGET" --out "$out" "${resume[@]}"
	done
done
