#!/usr/bin/env bash
# Compares the CPU time per run of one bench worker task in two builds of
# the bench program (cmd: go build -o FILE ./bench at each commit), for a
# loaded machine where wall times mislead: each round runs each build's
# worker with 12 and with 2 runs and takes (CPU(12) - CPU(2)) / 10, user
# plus system seconds from /usr/bin/time, so start-up and warm-up cancel;
# the builds alternate, and the medians and per-round ratios are printed.
#
#   OLD=/tmp/bench-old NEW=/tmp/bench-new scripts/bench-cpu-ab.sh 3 --task rna-train --model scnn --config families --batch 10 --length 128
#
# The numbers of docs/performance.md marked "CPU time" came from it.
set -euo pipefail
rounds=${1:?usage: OLD=BIN NEW=BIN scripts/bench-cpu-ab.sh ROUNDS WORKER-FLAGS...}
shift
: "${OLD:?OLD must name the old build's bench program}" "${NEW:?NEW must name the new build's bench program}"
cpu() { # bin nruns: user+sys seconds of a worker doing nruns runs
	local out
	out=$( { /usr/bin/time -f "%U %S" bash -c 'for i in $(seq 1 "$2"); do echo run; done | "$1" worker "${@:3}" > /dev/null' _ "$1" "$2" "${@:3}"; } 2>&1 | tail -n 1)
	awk '{print $1 + $2}' <<< "$out"
}
for r in $(seq 1 "$rounds"); do
	for b in old new; do
		bin=$NEW
		[ "$b" = old ] && bin=$OLD
		c12=$(cpu "$bin" 12 "$@")
		c2=$(cpu "$bin" 2 "$@")
		awk -v b="$b" -v a="$c12" -v c="$c2" 'BEGIN {printf "%s %.4f\n", b, (a - c) / 10}'
	done
done | awk '
	{ v[$1] = v[$1] " " $2; n[$1]++; x[$1, n[$1]] = $2 }
	function median(k,   m, i, j, t, a) {
		m = n[k]; for (i = 1; i <= m; i++) a[i] = x[k, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	END {
		o = median("old"); w = median("new")
		printf "CPU s/run: old %.3f new %.3f  old/new %.2fx  (rounds:", o, w, o / w
		for (i = 1; i <= n["old"]; i++) printf " %.2f", x["old", i] / x["new", i]
		print ")"
	}'
