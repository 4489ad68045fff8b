#!/usr/bin/env bash
# make test-slurm: the features array (4 shards), the merge and a dependent
# predict array on a real one-node SLURM cluster started on localhost, then
# the alignment search array (msa.sbatch, 2 shards; needs jackhmmer, Debian
# hmmer, installed here where absent), each compared byte for byte with
# single-process runs.  Needs root (to
# install slurm-wlm and munge and start the daemons); skips otherwise.
# Daemons started here are always stopped.
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
skip() { echo "test-slurm: SKIP: $*"; exit 0; }
fail() { echo "test-slurm: FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "not root (needed to install slurm-wlm/munge and run slurmctld/slurmd)"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge) >/dev/null 2>&1 ||
		skip "could not install slurm-wlm and munge"
fi
model=${MODEL:-models/scnn.scnn}
[ -f "$model" ] || fail "no model $model (make train writes one)"

work=$(mktemp -d /tmp/contactmap-slurm.XXXXXX)
host=$(hostname -s)
pids=()
cleanup() {
	local f pid i
	for f in slurmd slurmctld munged; do
		[ -f "$work/$f.pid" ] || continue
		pid=$(cat "$work/$f.pid")
		kill "$pid" 2>/dev/null || continue
		for i in $(seq 20); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.5
		done
		kill -9 "$pid" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work"/{state,spool,log,munge}
go build -o "$work/contactmap" ./cmd/contactmap || fail "build"
cm=$work/contactmap
# Munge with its own key, socket and pid file, so a system munged is untouched.
dd if=/dev/urandom of="$work/munge/key" bs=1024 count=1 2>/dev/null
chmod 400 "$work/munge/key"
munged --force --key-file="$work/munge/key" --socket="$work/munge/sock" \
	--pid-file="$work/munged.pid" --log-file="$work/log/munged.log" --seed-file="$work/munge/seed" ||
	skip "munged does not start here"
cat > "$work/slurm.conf" <<CONF
ClusterName=cmtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=26817
SlurmdPort=26818
AuthType=auth/munge
AuthInfo=socket=$work/munge/sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld || skip "slurmctld does not start here (see $work/log)"
slurmd || skip "slurmd does not start here"
for i in $(seq 30); do
	sinfo -h -o %t 2>/dev/null | grep -q idle && break
	sleep 1
done
sinfo -h -o %t | grep -q idle || { cat "$work/log/"*.log | tail -20; fail "node not idle after 30 s"; }

# The pipeline through submit.sh: features x4 -> merge -> predict x4.
case $model in /*) ;; *) model=$top/$model ;; esac
export CONTACTMAP=$cm OUT=$work/features PRED_OUT=$work/predictions MODEL=$model
export LIST=$top/data/pisces/cullpdb_pc25_res3.0_R1.0_d180920_chains14051.gz PDB_DIR=$top/data/pdb
export SBATCH_FLAGS="--chdir=$work --output=$work/log/job-%x-%A_%a.out"
scripts/slurm/submit.sh -n 4 -p 4 | tee "$work/submitted" || fail "submit"
deadline=$((SECONDS + ${SLURM_TEST_TIMEOUT:-900}))
while squeue -h 2>/dev/null | grep -q .; do
	[ $SECONDS -lt $deadline ] || { squeue; fail "jobs still running after the timeout"; }
	sleep 2
done
grep -l -i "error\|fail" "$work"/log/job-*.out 2>/dev/null | while read -r f; do echo "== $f"; tail -5 "$f"; done
[ -f "$work/features/manifest.tsv" ] || fail "no merged manifest (features or merge job failed)"

# Single-process reference runs.
"$cm" features --list "$LIST" --pdb-dir "$PDB_DIR" --out "$work/single" >/dev/null || fail "single features run"
for f in manifest.tsv skipped.tsv; do
	cmp -s "$work/features/$f" "$work/single/$f" || fail "$f differs from the single-process run"
done
n=0
for f in "$work"/single/*.feat.zst; do
	cmp -s "$f" "$work/features/$(basename "$f")" || fail "$(basename "$f") differs"
	n=$((n + 1))
done
[ "$(ls "$work"/features/*.feat.zst | wc -l)" -eq "$n" ] || fail "extra feature files from the shards"
"$cm" predict --model "$MODEL" --pdb-dir "$PDB_DIR" --ids "$work/features/test-ids.txt" --out "$work/single-pred" >/dev/null ||
	fail "single predict run"
diff -rq -x 'summary*.tsv' "$work/single-pred" "$work/predictions" || fail "predictions differ from the single-process run"
# Each shard writes its own summary (summary.shard-i-of-n.tsv); together
# they hold the single run's rows.
rows=$(tail -q -n +2 "$work"/predictions/summary.shard-*-of-4.tsv | sort)
want=$(tail -n +2 "$work/single-pred/summary.tsv" | sort)
[ "$rows" = "$want" ] || fail "the shards' summaries differ from the single run's"
np=$(ls "$work"/predictions/*.rr | wc -l)
[ "$np" -gt 0 ] || fail "no predictions"

# The alignment search array (msa.sbatch, 2 shards) against the test
# database of pipeline/search, compared with a single-process run.
msa_result="msa stage skipped (no jackhmmer: Debian package hmmer)"
if ! command -v jackhmmer >/dev/null; then
	(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hmmer) >/dev/null 2>&1
fi
if command -v jackhmmer >/dev/null; then
	mkdir -p "$work/msa-in"
	cp pipeline/search/testdata/1aapA.family.fasta "$work/msa-in/db.fasta"
	{ cat pipeline/search/testdata/1aapA.query.fasta; head -8 pipeline/search/testdata/1aapA.family.fasta; } > "$work/msa-in/queries.fasta"
	echo "$work/msa-in/queries.fasta" > "$work/msa-in/ids.txt"
	# shellcheck disable=SC2086
	IDS=$work/msa-in/ids.txt DB=$work/msa-in/db.fasta MSA_OUT=$work/msas MSA_FLAGS="--iterations 1" \
		sbatch --array=0-1 $SBATCH_FLAGS "$top/scripts/slurm/msa.sbatch" || fail "submit msa.sbatch"
	deadline=$((SECONDS + ${SLURM_TEST_TIMEOUT:-900}))
	while squeue -h 2>/dev/null | grep -q .; do
		[ $SECONDS -lt $deadline ] || { squeue; fail "msa jobs still running after the timeout"; }
		sleep 2
	done
	for i in 0 1; do
		[ -f "$work/msas/manifest.shard-$i-of-2.tsv" ] || fail "no manifest of msa shard $i (see $work/log)"
	done
	"$cm" msa --db "$work/msa-in/db.fasta" --iterations 1 --out "$work/single-msas" "$work/msa-in/queries.fasta" >/dev/null ||
		fail "single msa run"
	na=0
	for f in "$work"/single-msas/*.a3m; do
		cmp -s "$f" "$work/msas/$(basename "$f")" || fail "alignment $(basename "$f") differs from the single-process run"
		na=$((na + 1))
	done
	[ "$na" -eq 5 ] && [ "$(ls "$work"/msas/*.a3m | wc -l)" -eq "$na" ] || fail "msa shards wrote $(ls "$work"/msas/*.a3m | wc -l) alignments, the single run $na (want 5)"
	rows=$(tail -q -n +2 "$work"/msas/manifest.shard-*-of-2.tsv | cut -f1 | sort | tr '\n' ' ')
	want=$(tail -n +2 "$work/single-msas/manifest.tsv" | cut -f1 | sort | tr '\n' ' ')
	[ "$rows" = "$want" ] || fail "msa shard manifests list $rows, the single run $want"
	msa_result="$na alignments of the msa array equal the single-process run's"
fi
echo "test-slurm: PASS: $n feature files, merged manifest and $np predictions equal the single-process runs; $msa_result"
