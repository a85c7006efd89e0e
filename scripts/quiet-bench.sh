#!/usr/bin/env bash
# The README's engine and simulator figures in one run, for a quiet
# machine (about 4 minutes on a 16-core Xeon at 2.1 GHz; its log is
# docs/figures/xeon16-*.txt). Not a test: timings on a loaded machine are
# not figures to quote.
#
# usage: scripts/quiet-bench.sh [MAUICTL [TRACES]]
#   MAUICTL  a release build (default target/release/mauictl)
#   TRACES   the folder of the Parallel Workloads Archive logs
#            (default ../shared/traces: KTH-SP2-1996-2.1-cln.swf.gz and
#            HPC2N-2002-2.1-cln.swf.gz)
# The log goes to standard output and to $OUT/log.txt when OUT is set.
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
M=$(realpath "${1:-$REPO/target/release/mauictl}")
TRACES=$(realpath "${2:-$REPO/../shared/traces}")
KTH=$TRACES/KTH-SP2-1996-2.1-cln.swf.gz
HPC=$TRACES/HPC2N-2002-2.1-cln.swf.gz
for f in "$M" "$KTH" "$HPC"; do
	[ -r "$f" ] || { echo "quiet-bench: $f: not found" >&2; exit 2; }
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 2
export TZ=UTC
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	exec > >(tee "$OUT/log.txt") 2>&1
fi
TIMEFORMAT='  -> %R s real, %U s user, %S s sys'

# The Slurm benchmark's maui.cfg (scripts/slurm-bench.sh), conservative
# and EASY; the KTH comparison with and without a standing reservation.
cat >cons.cfg <<'CFG'
JOBNODEMATCHPOLICY EXACTNODE
RMPOLLINTERVAL 00:00:10
RESERVATIONDEPTH 3100
RESDEPTH 3100
BACKFILLPOLICY FIRSTFIT
QUEUETIMEWEIGHT 1
CFG
sed 's/^RESERVATIONDEPTH .*/RESERVATIONDEPTH 1/; s/^RESDEPTH .*/RESDEPTH 24/' cons.cfg >easy.cfg
cp "$REPO/scripts/maui-compare/kth.cfg" kth.cfg
{ cat kth.cfg; echo 'SRCFG[day] TASKCOUNT=16 PERIOD=DAY STARTTIME=08:00:00 ENDTIME=17:00:00 USERLIST=u1'; } >kth-sr.cfg

echo "== machine"
nproc
grep -m1 "model name" /proc/cpuinfo
grep -m1 "cpu MHz" /proc/cpuinfo
uname -r
cat /proc/loadavg
lscpu 2>/dev/null | grep -E "Model name|Thread|Core|Socket|L3" || true
echo "== mauictl $("$M" --version 2>/dev/null | head -1)"

bench() {
	echo "== bench $*"
	time "$M" "$@" 2>&1 | grep -E "iterations:|peak RSS|last iteration|scenario"
}
sim() {
	echo "== $*"
	time "$M" "$@" >/dev/null 2>"$W/err" || { echo "FAILED"; tail -5 "$W/err"; }
}
bench bench
bench bench
bench bench --idle 1000
bench bench --idle 100000 --iterations 5
bench bench --nodes 50000 --idle 100000 --iterations 3
bench -C cons.cfg bench --nodes 256 --idle 3000 --running 200 --iterations 3
bench -C easy.cfg bench --nodes 256 --idle 3000 --running 200 --iterations 3
for i in 1 2 3; do sim simulate --demo -q; done
for i in 1 2; do sim simulate "$KTH" -q; done
for i in 1 2 3; do sim -C kth-sr.cfg simulate "$KTH" --jobs 3000 --grid -q; done
for i in 1 2; do sim -C kth.cfg simulate "$KTH" --jobs 3000 --grid -q; done
for i in 1 2; do sim simulate "$HPC" --jobs 20000 -q; done
for i in 1 2; do sim simulate "$HPC" -q; done
sim simulate --synthetic 100,20000 -q
for i in 1 2; do sim simulate --synthetic 5000,20000 -q; done
printf 'SWEEP XFACTORWEIGHT 0 10 100 1000\nSWEEP RESERVATIONDEPTH 1 4 16\n' >grid.cfg
n=$(nproc)
sim sweep grid.cfg "$KTH" --out swn -q -j "$n"
sim sweep grid.cfg "$KTH" --out sw4 -q -j 4
cmp -s swn/sweep.csv sw4/sweep.csv && echo "sweep.csv identical at -j $n and -j 4"
cat /proc/loadavg
echo "== done"
