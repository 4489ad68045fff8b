#!/usr/bin/env bash
# Runs every Fuzz function of the module for FUZZTIME each (default 20s),
# found by `go test -list` so that a new target cannot be left out. Go's
# fuzzer keeps any failing input under the package's testdata/fuzz/,
# where the plain `go test` of make test runs it from then on.
# Usage: scripts/fuzz.sh [PACKAGE...]   (default: ./...)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-20s}
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)
n=0
failed=()
for pkg in $($GO list "${pkgs[@]}"); do
	targets=$($GO test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true)
	for t in $targets; do
		n=$((n + 1))
		echo "fuzz: $pkg $t ($FUZZTIME)"
		if ! $GO test "$pkg" -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME"; then
			failed+=("$pkg $t")
		fi
	done
done
echo "fuzz: $n targets run"
if [ ${#failed[@]} -gt 0 ]; then
	printf 'fuzz: failed: %s\n' "${failed[@]}" >&2
	exit 1
fi
