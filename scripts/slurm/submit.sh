#!/usr/bin/env bash
# Submit the pipeline: features array -> merge -> (train) -> predict array,
# each step after the previous one succeeded (--dependency=afterok).
#
#   scripts/slurm/submit.sh [-n FEATURE_TASKS] [-p PREDICT_TASKS] [-t] [-i IDS]
#     -n  feature array size [4]        -p  predict array size [4]
#     -t  also train (MODEL_KIND, CONFIG, EPOCHS from the environment)
#     -i  inputs to predict [the test split of the merged manifest]
# Paths come from the environment as in the .sbatch files (CONTACTMAP,
# LIST, PDB_DIR, OUT, MODEL, PRED_OUT, ...); extra sbatch options from
# SBATCH_FLAGS (e.g. "--partition=short --time=1:00:00").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nf=4 np=4 train=0 ids=""
while getopts "n:p:ti:" o; do
	case $o in
	n) nf=$OPTARG ;; p) np=$OPTARG ;; t) train=1 ;; i) ids=$OPTARG ;;
	*) sed -n '2,12p' "$0"; exit 2 ;;
	esac
done
export OUT=${OUT:-features}
flags=(--parsable --export=ALL ${SBATCH_FLAGS:-})
feat=$(sbatch "${flags[@]}" --array=0-$((nf - 1)) "$here/features.sbatch")
merge=$(sbatch "${flags[@]}" --dependency=afterok:$feat "$here/merge.sbatch")
echo "features array $feat, merge $merge"
last=$merge
if [ "$train" = 1 ]; then
	last=$(sbatch "${flags[@]}" --dependency=afterok:$merge "$here/train.sbatch")
	echo "train $last"
	export MODEL=${MODEL:-${RUN:-runs/${MODEL_KIND:-scnn}}/model.scnn}
fi
if [ -z "$ids" ]; then
	# The test split, read once the merge has written the manifest.
	ids="$OUT/test-ids.txt"
	pre=$(sbatch "${flags[@]}" --dependency=afterok:$last --job-name=cm-ids \
		--wrap "awk -F'\t' 'NR>1 && \$6==\"test\" {print \$1}' '$OUT/manifest.tsv' > '$ids'")
	last=$pre
fi
export IDS=$ids
pred=$(sbatch "${flags[@]}" --dependency=afterok:$last --array=0-$((np - 1)) "$here/predict.sbatch")
echo "predict array $pred"
