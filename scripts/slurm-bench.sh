#!/usr/bin/env bash
# Slurm's own sched/backfill against sched/maui on the same queue (not a
# CI test: it takes several minutes and wants a quiet machine).
#
# usage: scripts/slurm-bench.sh [--nodes N] [--jobs N] [--measure SECS]
#                               [--base DIR] [--debug]
#
# Twice, on a fresh N-node test cluster (tests/slurm/cluster.sh; default
# 256 nodes of three kinds), the same deterministic queue of mixed jobs
# (default 3,000: one to 256 tasks, one to four CPUs per task, 100-2000 MB
# per CPU, 5 to 60 minute limits, a quarter of them short enough to end
# during the run) is submitted at once by two users, and the scheduler is
# watched for --measure seconds (default 90):
#   1. SchedulerType=sched/backfill, no gate: its backfill cycle time and
#      jobs tried per cycle, and the main scheduler's cycles, from sdiag;
#   2. SchedulerType=sched/maui + JobSubmitPlugins=maui, with the release
#      build of the library: its iteration times from slurmctld's log.
# Prints both side by side and the jobs each had started by the end.
# Needs root and the packages of `scripts/deps.sh test`.
set -euo pipefail
cd "$(dirname "$0")/.."

NODES=256 JOBS=3000 MEASURE=90 BASE="" PROFILE=release
while [ $# -gt 0 ]; do
	case "$1" in
	--nodes) NODES=$2; shift ;;
	--jobs) JOBS=$2; shift ;;
	--measure) MEASURE=$2; shift ;;
	--base) BASE=$2; shift ;;
	--debug) PROFILE=debug ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "slurm-bench: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$BASE" ] || BASE=/tmp/mauisched-bench-$$
mkdir -p "$BASE"
BASE=$(cd "$BASE" && pwd -P)
say() { printf 'slurm-bench: %s\n' "$*" >&2; }

reason=$(tests/slurm/cluster.sh preflight) || { echo "slurm-bench: $reason" >&2; exit 1; }

# ------------------------------------------------------------------ build
say "building the library ($PROFILE), the plugins and the submitter"
if [ "$PROFILE" = release ]; then cargo build --release --lib -q; else cargo build --lib -q; fi
PLUGINS=$BASE/plugins
mkdir -p "$PLUGINS"
make -s -C c-shim/slurm O="$PLUGINS"
cp "target/$PROFILE/libmauisched.so" "$PLUGINS/libmauisched.so.1"
gcc -O2 -o "$BASE/submit_many" tests/slurm/submit_many.c -lslurm
tests/slurm/users.sh ensure 2 >/dev/null

# ------------------------------------------------------------------ queue
# Deterministic: the same queue for both schedulers. Columns are
# submit_many's: NAME NTASKS CPUS_PER_TASK MEM_PER_CPU TIME_MIN SLEEP_S [NODES].
awk -v n="$JOBS" 'BEGIN {
	s = 12345
	for (i = 0; i < n; i++) {
		s = (s * 1103515245 + 12345) % 2147483648; r = s / 2147483648
		if (r < 0.5)       { t = 1 + int(r * 8) }          # 1-4 tasks
		else if (r < 0.8)  { t = 8 * (1 + int((r - 0.5) * 13)) }  # 8-32
		else if (r < 0.95) { t = 64 * (1 + int((r - 0.8) * 26)) } # 64-256
		else               { t = 16 }
		s = (s * 1103515245 + 12345) % 2147483648; c = 1 + int(s / 2147483648 * 4)
		if (t * c > 512) c = 1
		s = (s * 1103515245 + 12345) % 2147483648; m = 100 * (1 + int(s / 2147483648 * 20))
		s = (s * 1103515245 + 12345) % 2147483648; tl = 5 + int(s / 2147483648 * 56)
		s = (s * 1103515245 + 12345) % 2147483648
		sl = (s / 2147483648 < 0.25) ? 5 + int(s / 2147483648 * 100) : tl * 60 - 30
		nodes = (r >= 0.95) ? 2 : 0
		printf "b%d %d %d %d %d %d %d\n", i, t, c, m, tl, sl, nodes
	}
}' >"$BASE/queue.all"
awk 'NR % 2 == 1' "$BASE/queue.all" >"$BASE/queue.1"
awk 'NR % 2 == 0' "$BASE/queue.all" >"$BASE/queue.2"

NODE_ARGS=(--node "$(( NODES * 5 / 8 )) CPUs=16 RealMemory=64000 Features=std"
	--node "$(( NODES / 4 )) CPUs=32 RealMemory=256000 Features=bigmem"
	--node "$(( NODES - NODES * 5 / 8 - NODES / 4 )) CPUs=8 RealMemory=32000 Features=old")

submit_all() {
	local c=$1 u
	for u in 1 2; do
		runuser -u "mauitest$u" -- env SLURM_CONF="$c/etc/slurm.conf" \
			"$BASE/submit_many" "$c" <"$BASE/queue.$u" >"$c/ids.$u" 2>/dev/null &
	done
	wait
}

count_started() {
	# Started = no longer pending (running, or already finished).
	local total pending
	total=$(cat "$1"/ids.1 "$1"/ids.2 | wc -l)
	pending=$(SLURM_CONF="$1/etc/slurm.conf" squeue -h -t PD -o %i | wc -l)
	echo $(( total - pending ))
}

# ------------------------------------------------------- 1: sched/backfill
C1=$BASE/backfill
say "1/2: sched/backfill on $NODES nodes, $JOBS jobs, ${MEASURE} s"
tests/slurm/cluster.sh start "$C1" "$NODES" "${NODE_ARGS[@]}" --sched sched/backfill \
	--plugin-dir "$PLUGINS" --owner-pid $$ --max-life 3600 \
	--sched-params "bf_interval=10,bf_max_job_test=$(( JOBS + 100 )),bf_continue,sched_interval=2" \
	>/dev/null
export SLURM_CONF=$C1/etc/slurm.conf
sdiag -r >/dev/null
submit_all "$C1"
sleep "$MEASURE"
sdiag >"$C1/sdiag.txt"
started1=$(count_started "$C1")
tests/slurm/cluster.sh stop "$C1" >/dev/null 2>&1
unset SLURM_CONF

# ----------------------------------------------------------- 2: sched/maui
C2=$BASE/maui
say "2/2: sched/maui on $NODES nodes, $JOBS jobs, ${MEASURE} s"
mkdir -p "$C2"
cat >"$C2/maui.cfg" <<'EOF'
JOBNODEMATCHPOLICY EXACTNODE
RMPOLLINTERVAL 00:00:30
RESERVATIONDEPTH 1
BACKFILLPOLICY FIRSTFIT
QUEUETIMEWEIGHT 1
EOF
tests/slurm/cluster.sh start "$C2" "$NODES" "${NODE_ARGS[@]}" --sched sched/maui --job-submit maui \
	--plugin-dir "$PLUGINS" --owner-pid $$ --max-life 3600 \
	--sched-params "maui_config=$C2/maui.cfg,maui_library=$PLUGINS/libmauisched.so.1,sched_interval=2" \
	>/dev/null
export SLURM_CONF=$C2/etc/slurm.conf
submit_all "$C2"
sleep "$MEASURE"
started2=$(count_started "$C2")
cp "$C2/log/slurmctld.log" "$C2/slurmctld.log.saved"
tests/slurm/cluster.sh stop "$C2" >/dev/null 2>&1
unset SLURM_CONF

# ----------------------------------------------------------------- report
sd() { # sd SECTION KEY: a number from sdiag's SECTION
	awk -v sec="$1" -v key="$2" '
		index($0, sec) { on = 1; next }
		on && /statistics/ { on = 0 }
		on { split($0, a, ":"); k = a[1]; gsub(/^[ \t]+|[ \t]+$/, "", k)
		     if (k == key) { v = a[2]; gsub(/[^0-9.]/, "", v); print v; exit } }' "$C1/sdiag.txt"
}
us_ms() { awk -v u="${1:-0}" 'BEGIN { printf "%.1f", u / 1000 }'; }
bf_cycles=$(sd "Backfilling stats" "Total cycles")
bf_last=$(sd "Backfilling stats" "Last cycle")
bf_max=$(sd "Backfilling stats" "Max cycle")
bf_mean=$(sd "Backfilling stats" "Mean cycle")
bf_depth=$(sd "Backfilling stats" "Depth Mean")
bf_try=$(sd "Backfilling stats" "Depth Mean (try depth)")
bf_jobs=$(sd "Backfilling stats" "Total backfilled jobs (since last slurm start)")
main_cycles=$(sd "Main schedule statistics" "Total cycles")
main_mean=$(sd "Main schedule statistics" "Mean cycle")
main_max=$(sd "Main schedule statistics" "Max cycle")
main_depth=$(sd "Main schedule statistics" "Mean depth cycle")

# Per iteration: engine, total, and total less the reason updates (the
# decision: snapshot, engine, starts).
read -r m_n m_eng_mean m_eng_max m_tot_mean m_tot_max m_dec_mean m_dec_max m_idle <<<"$(
	grep 'sched/maui: iteration [0-9]*:.* times: ' "$C2/slurmctld.log.saved" | awk '
		{ for (i = 1; i <= NF; i++) {
			if ($i == "engine") e = $(i + 1) + 0
			if ($i == "(reasons") r = $(i + 1) + 0
			if ($i == "total") t = $(i + 1) + 0
			if ($i == "idle" && $(i - 1) ~ /^[0-9]+$/) id = $(i - 1) + 0 }
		  d = t - r
		  n++; se += e; st += t; sd += d
		  if (e > me) me = e; if (t > mt) mt = t; if (d > md) md = d; if (id > mi) mi = id }
		END { if (n) printf "%d %.1f %.1f %.1f %.1f %.1f %.1f %d\n", n, se / n, me, st / n, mt, sd / n, md, mi
		      else print "0 0 0 0 0 0 0 0" }')"

echo
echo "Slurm 22.05 on $NODES nodes, $JOBS jobs submitted at once, ${MEASURE} s each ($(nproc) cores; library: $PROFILE)"
printf '%-44s %-38s %-28s\n' "" "sched/backfill" "sched/maui"
printf '%-44s %-38s %-28s\n' "scheduling cycles / iterations" "${bf_cycles:-0} backfill, ${main_cycles:-0} main" "$m_n"
printf '%-44s %-38s %-28s\n' "mean cycle / decision (ms)" "$(us_ms "$bf_mean") backfill, $(us_ms "$main_mean") main" "$m_dec_mean (engine $m_eng_mean)"
printf '%-44s %-38s %-28s\n' "longest cycle / decision (ms)" "$(us_ms "$bf_max") backfill, $(us_ms "$main_max") main" "$m_dec_max (engine $m_eng_max)"
printf '%-44s %-38s %-28s\n' "mean / longest iteration with reasons (ms)" "-" "$m_tot_mean / $m_tot_max"
printf '%-44s %-38s %-28s\n' "last backfill cycle (ms)" "$(us_ms "$bf_last")" "-"
printf '%-44s %-38s %-28s\n' "jobs looked at per cycle (mean)" "${bf_depth:-0} backfill (${bf_try:-0} tried), ${main_depth:-0} main" "all ($m_idle idle at most)"
printf '%-44s %-38s %-28s\n' "jobs backfilled (Slurm's count)" "${bf_jobs:-0}" "-"
printf '%-44s %-38s %-28s\n' "jobs started by the end" "$started1" "$started2"
echo
say "kept in $BASE (sdiag.txt, slurmctld.log.saved); remove it when done"
