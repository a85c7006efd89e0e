#!/usr/bin/env bash
# Instructions executed by the engine, counted by valgrind: unlike wall
# time they do not change with the load of a shared machine, so two builds
# can be compared exactly (not a CI test: a few minutes per build).
#
# usage: scripts/icount.sh [MAUICTL...]   (default: target/release/mauictl)
#
# For each mauictl binary, three figures (millions of instructions):
#   hpc2n-5000   simulating the first 5,000 jobs of the HPC2N log, less a
#                run of one job (reading and parsing the whole log);
#   iteration    one iteration of `mauictl bench` (10,000 nodes, 50,000
#                idle jobs), as `--iterations 1` less `--iterations 0`
#                (both build the scenario and run the warm-up iteration);
#   demo         `mauictl simulate --demo` as a whole.
# Needs valgrind (`scripts/deps.sh test` installs it) and ../shared/traces.
set -euo pipefail
cd "$(dirname "$0")/.."

traces=../shared/traces
hpc2n=$traces/HPC2N-2002-2.1-cln.swf.gz
[ -f "$hpc2n" ] || { echo "icount: $hpc2n not found (../shared is needed)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "icount: valgrind not installed" >&2; exit 1; }
[ $# -gt 0 ] || set -- target/release/mauictl

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Instructions of one command, from cachegrind's summary.
count() {
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}

printf '%-40s %12s %12s %12s\n' binary hpc2n-5000 iteration demo
for bin in "$@"; do
	sim() { count "$bin" simulate -q "$hpc2n" --out "$out/sim" "$@"; }
	h=$(($(sim --jobs 5000) - $(sim --jobs 1)))
	i=$(($(count "$bin" bench --iterations 1) - $(count "$bin" bench --iterations 0)))
	d=$(count "$bin" simulate -q --demo --out "$out/demo")
	printf '%-40s %12d %12d %12d\n' "$bin" $((h / 1000000)) $((i / 1000000)) $((d / 1000000))
done
