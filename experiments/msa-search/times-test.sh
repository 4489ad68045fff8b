#!/bin/bash
# Times search and predict, with the default settings (plmDCA's
# --plm-max-identity 0.9 among them), of the six test queries that took
# over 60 s with every row (results-test.tsv). Their maps are not scored:
# the test families were read once, for the default before the filter.
# Run from the repository root after `go build -o /tmp/msa-search/contactmap
# ./cmd/contactmap` and `go run ./experiments/msa-search build -out
# /tmp/msa-search/db.fasta`.
set -u
B=${B:-/tmp/msa-search/contactmap}
DB=${DB:-/tmp/msa-search/db.fasta}
out=${OUT:-experiments/msa-search/times-test-id90.tsv}
echo -e "family\tL\tdepth\tsearch_s\tpredict_s\ttotal_s\tpredict_rss_mib" > $out
while IFS=$'\t' read -r fam st; do
  d=/tmp/tt/$fam; rm -rf $d; mkdir -p $d
  /usr/bin/time -o $d/msa.time -f "%e" $B msa --db $DB --search jackhmmer --threads 2 --out $d/msa $st >/dev/null 2>$d/msa.err; s=$(tail -1 $d/msa.time)
  a3m=$(ls $d/msa/*.a3m)
  depth=$(awk -F'\t' 'NR==2{print $3}' $d/msa/manifest.tsv); L=$(awk -F'\t' 'NR==2{print $2}' $d/msa/manifest.tsv)
  /usr/bin/time -o $d/pred.time -f "%e %M" $B predict --force --out $d/pred --format npy,rr $a3m >/dev/null 2>$d/pred.err; p=$(tail -1 $d/pred.time)
  ps=${p% *}; rss=$(( ${p#* } / 1024 ))
  tot=$(python3 -c "print(round($s+$ps,1))")
  echo -e "$fam\t$L\t$depth\t$s\t$ps\t$tot\t$rss" | tee -a $out
done <<LIST
1FB0_A	data/msa/1FB0_A.pdb
1jfuA	../shared/data/psicov150/pdb/1jfuA.pdb.gz
1i5gA	../shared/data/psicov150/pdb/1i5gA.pdb.gz
2PND_A	data/msa/2PND_A.pdb
1pkoA	../shared/data/psicov150/pdb/1pkoA.pdb.gz
1i1nA	../shared/data/psicov150/pdb/1i1nA.pdb.gz
LIST
