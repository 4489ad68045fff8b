#!/usr/bin/env bash
# identity.sh: the outputs a refactoring must leave byte-identical.
#
#   scripts/identity.sh BIN OUT
#
# Runs the binary BIN (a contactmap built from any commit; the current
# directory must be a checkout's root, the same for both runs) over a fixed
# set of commands: predict with every shipped protein model and input
# kind, the msa stage and predict --db on the test database, rna predict
# with every method and model, rna eval, short training runs of the
# three systems, rec eval and recommend from the trained model, and
# features. Every output file goes under OUT, and OUT/sums.txt gets the
# SHA-256 of each, with the columns that time a run (seconds, host)
# blanked first. Compare two checkouts with
#
#   diff OUT1/sums.txt OUT2/sums.txt
#
# About 10 minutes on two cores; the tools of the msa stage (hmmer) must
# be installed, or that part is skipped with a line saying so.
set -euo pipefail
BIN=$(realpath "$1")
DEST=$2
# Every run writes under one fixed path, so that outputs that record
# their own paths (summaries, manifests) compare equal; moved to DEST at
# the end.
OUT=${IDENTITY_WORK:-/tmp/contactmap-identity}
rm -rf "$OUT"
mkdir -p "$OUT" "$(dirname "$DEST")"
LOG=$OUT/log.txt
: >"$LOG"
run() { echo "+ $*" >>"$LOG"; "$@" >>"$LOG" 2>&1 || echo "exit $? from: $*" >>"$LOG"; }

# Protein predict: every shipped model, PDB IDs, a structure file, a
# FASTA sequence on stdin, an alignment; every format.
P=$OUT/predict
run "$BIN" predict --force --format rr,npy,tsv,png --out "$P/default" 1ENH_A 1B9W_A data/msa/1CTF_A.pdb
for m in cnn scnn distilled ensemble; do
	run "$BIN" predict --force --format rr,npy,tsv --model "$m" --out "$P/$m" 1ENH_A 1C1Y_B
done
printf '>q1\nMKVLAAGIVALLLAAGCSSSKEETTQ\n' | run "$BIN" predict --force --format rr,tsv --out "$P/stdin" -
run "$BIN" predict --force --format rr,tsv --out "$P/msa" data/msa/1CTF_A.fasta
run "$BIN" predict --force --format rr,tsv --method plm --out "$P/plm" data/msa/1CTF_A.fasta

# The search stage and predict --db on the test database.
if command -v jackhmmer >/dev/null; then
	DB=pipeline/search/testdata/1aapA.family.fasta
	Q=pipeline/search/testdata/1aapA.query.fasta
	if [ -f "$DB" ]; then
		run "$BIN" msa --force --db "$DB" --out "$OUT/msa" "$Q"
		run "$BIN" predict --force --format rr,tsv --db "$DB" --out "$OUT/predict-db" "$Q"
	else
		echo "no $DB: msa part skipped" >>"$LOG"
	fi
else
	echo "no jackhmmer: msa part skipped" >>"$LOG"
fi

# RNA predict: every method, every shipped model, every format.
R=$OUT/rna
IN="data/rna/test/5S/d.5.e.M.fossilis.nopct data/rna/test/rnasep/A.ferrooxidans.ct"
for m in network homology mfe centroid mea-pf stacking; do
	# shellcheck disable=SC2086
	run "$BIN" rna predict --force --method "$m" --out "$R/$m" $IN
done
for m in bprna rna-scnn rna-scnn-bpp rna-scnn-bpp-global rna-scnn-bpp-global-3seeds rna-scnn-16s rna-scnn-seq; do
	# shellcheck disable=SC2086
	run "$BIN" rna predict --force --model "$m" --format bpseq,ct,db --out "$R/model-$m" $IN
done
# shellcheck disable=SC2086
run "$BIN" rna predict --force --model rna-scnn --decoder mea --format bpseq,db --out "$R/mea-decoder" $IN
printf '>r1\nGGGGAAACCCCAUAGCGCGAAAGCGCUU\n' | run "$BIN" rna predict --force --format db,ct --out "$R/stdin" -
run "$BIN" rna eval --force --model rna-scnn --split test --out "$OUT/rna-eval/report"

# Short training runs of the three systems, fixed seeds, one worker.
T=$OUT/train
run "$BIN" rna train --force --steps 6 --seed 3 --workers 1 --out "$T/rna"
REC_DATA=${REC_DATA:-../shared/data/movielens-100k}
run "$BIN" rec train --force --data "$REC_DATA" --epochs 1 --seed 3 --workers 1 --out "$T/rec"
if [ -f "$T/rec/model.scnn" ]; then
	run "$BIN" rec eval --data "$REC_DATA" --model "$T/rec/model.scnn"
	run "$BIN" rec recommend --data "$REC_DATA" --model "$T/rec/model.scnn" -n 5 1 42
	"$BIN" rec recommend --data "$REC_DATA" --model "$T/rec/model.scnn" -n 5 1 42 >"$OUT/recommend.txt" 2>>"$LOG" || true
fi
F=$OUT/features
run "$BIN" features --force --list data/pisces/cullpdb_pc25_res3.0_R1.0_d180920_chains14051.gz --pdb-dir data/pdb --out "$F" --workers 2
run "$BIN" train --force --features "$F" --epochs 1 --seed 3 --workers 2 --out "$T/protein"

# The sums, timing columns blanked, and the random names of temporary
# directories in the search logs replaced.
cd "$OUT"
find . -type f ! -name sums.txt ! -name log.txt | LC_ALL=C sort | while read -r f; do
	case "$f" in
	*.tsv)
		awk -F'\t' 'BEGIN{OFS="\t"} NR==1{for(i=1;i<=NF;i++) if($i ~ /^(seconds|host|time|started|elapsed)/) drop[i]=1} {for(i in drop) $i=""; print}' "$f" | sha256sum | sed "s|-\$|$f|"
		;;
	*.log)
		sed -E 's#/tmp/contactmap-search-[0-9]+/query-[0-9]+#TMP#g' "$f" | sha256sum | sed "s|-\$|$f|"
		;;
	*) sha256sum "$f" ;;
	esac
done >sums.txt
cd /
rm -rf "$DEST"
mv "$OUT" "$DEST"
echo "$(wc -l <"$DEST/sums.txt") files; $DEST/sums.txt"
