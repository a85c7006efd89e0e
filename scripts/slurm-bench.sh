#!/usr/bin/env bash
# Slurm's own sched/backfill against sched/maui on the same queue (not a
# CI test: it takes several minutes and wants a quiet machine; figures
# taken on a loaded machine are not figures to quote).
#
# usage: scripts/slurm-bench.sh [--nodes N] [--jobs N] [--measure SECS]
#                               [--runs LIST] [--base DIR] [--debug]
#                               [--slurm24]
#        scripts/slurm-bench.sh --turnover [N] [--first K] [--chunk C]
#                               [--min-job-age SECS] [--nodes N]
#                               [--runs LIST] [--base DIR] [--debug]
#                               [--slurm24]
#
# --slurm24: on Slurm 24.11 instead of the host's 22.05, inside the Debian
# 13 root of scripts/slurm24-root.sh (made if missing): the library is
# built here, the plugins and the submitter in there against 24.11; --base
# defaults to target/slurm-bench-24-PID (the repository is bind-mounted
# in the root at its own path).
#
# --runs: which runs, comma-separated, done in the order given (default
# backfill,easy,conservative):
#   backfill      SchedulerType=sched/backfill, no gate; SchedulerParameters
#                 bf_interval=10,bf_max_job_test=JOBS+100,bf_continue,
#                 sched_interval=2: Slurm's backfill plans (reserves) every
#                 job it tests, up to bf_max_job_test, so it is conservative
#                 backfill over the whole queue (within bf_window, 1 day);
#   easy          SchedulerType=sched/maui + JobSubmitPlugins=maui, release
#                 build of the library, RESERVATIONDEPTH 1 (EASY backfill:
#                 only the first blocked job gets a reservation);
#   conservative  the same with RESERVATIONDEPTH = RESDEPTH = bf_max_job_test
#                 (a reservation for every job Slurm's backfill would plan;
#                 Maui's guide puts no upper bound on RESERVATIONDEPTH; the
#                 engine parses RESDEPTH but does not enforce it). Left
#                 different: Slurm plans only within bf_window (1 day) at
#                 bf_resolution (60 s); Maui's reservations have neither.
# Both maui runs: BACKFILLPOLICY FIRSTFIT, QUEUETIMEWEIGHT 1, JOBNODEMATCHPOLICY
# EXACTNODE, RMPOLLINTERVAL 00:00:10 (= bf_interval: the longest wait between
# two planning passes when nothing changes), SchedulerParameters sched_interval=-1,defer (Slurm's own scheduler off).
#
# Bench mode (default). Each run gets a fresh N-node test cluster
# (tests/slurm/cluster.sh; default 256 nodes of three kinds) and the same
# deterministic queue of mixed jobs (default 3,000: one to 256 tasks, one to
# four CPUs per task, 100-2000 MB per CPU, 5 to 60 minute limits, a quarter
# of them short enough to end during the run), submitted at once by two
# users; the window runs from just before the submission for --measure
# seconds (default 90). Prints one table, a row per run, and what each
# column counts:
#   window       seconds from just before the submission to the readings
#                (--measure, or a little more).
#   util %       allocated CPU-seconds / (total CPUs x window). Allocated
#                CPU-seconds: for every job that is not pending at the end
#                of the window (squeue -t all, SLURM_TIME_FORMAT=%s), its
#                allocated CPUs (%C) x the part of [StartTime, EndTime]
#                inside the window (a running job counts to the window's
#                end). CPUs only: a node whose memory is full but whose
#                CPUs are idle counts as idle. Total CPUs: sinfo's %C total.
#                MinJobAge is raised to window + 120 s if needed, so no
#                finished job is purged before it is counted.
#   started      jobs with a StartTime inside the window (running or ended).
#   starts(dup)  maui: starts the plugin logged in the window ("sched/maui:
#                start job N"), and in parentheses how many jobs got more
#                than one (a start re-issued before Slurm had allocated the
#                first; issue 25 wants none).
#   ctldCPUs     slurmctld's user+system CPU time over the window
#                (/proc/PID/stat utime+stime, delta; PID from the harness's
#                BASE/pids/slurmctld): submissions, scheduling, the
#                plugin's thread and the engine inside it, RPCs.
#   peakMB, endMB  slurmctld's VmHWM (peak since it started) and VmRSS
#                at the end of the window (/proc/PID/status).
#   cycles       backfill: backfill cycles / main scheduler cycles (sdiag,
#                reset when the window starts); maui: iterations logged
#                inside the window.
#   mean, max ms backfill: backfill cycle / main cycle (sdiag); maui: the
#                decision (iteration total less the reason updates:
#                snapshot, engine, starts), with the engine's own time in
#                parentheses.
#   w/reasons    maui: mean / longest whole iteration, reason updates
#                included.
#   looked at    backfill: jobs looked at per backfill cycle (tried), and
#                per main cycle; maui: all pending jobs, the most idle
#                jobs any iteration saw.
#   backfilled   Slurm's count of jobs started by its backfill (sdiag).
#
# Turnover mode (--turnover [N], N default 5,000). On a 64-node cluster
# (--nodes to change) of 16-CPU nodes, for each run, N whole-node jobs of 0 s (16 tasks, 1 node, 1 minute
# limit) are submitted in chunks of --chunk (default 500) with
# tests/slurm/submit_many.c; after each chunk the queue is waited for until
# no job is pending, running or completing (bounded). slurmctld's VmRSS is
# reported after the first --first jobs (default 500) and after all N,
# with the MinJobAge in force (scontrol show config; Slurm keeps finished
# jobs that long, 300 s by default: --min-job-age to set it). Each drain is
# bounded by 120 s + 1 s per job of the chunk; a run that misses it is
# reported "(incomplete)".
#
# Every wait is bounded; the clusters are stopped on exit (trap) and by
# the harness's watchdog (--owner-pid) if this script dies.
# Needs root and the packages of `scripts/deps.sh test`.
set -euo pipefail
cd "$(dirname "$0")/.."

NODES="" JOBS=3000 MEASURE=90 BASE="" PROFILE=release RUNS=backfill,easy,conservative
TURNOVER=0 FIRST=500 CHUNK=500 MINJOBAGE="" SLURM24=0 BUILT=0
ORIG=("$@")
isnum() { case "$1" in ''|*[!0-9]*) return 1 ;; esac; }
while [ $# -gt 0 ]; do
	case "$1" in
	--slurm24) SLURM24=1 ;;
	# Inside the root (--slurm24): the library was built outside.
	--built) BUILT=1 ;;
	--nodes) NODES=$2; shift ;;
	--jobs) JOBS=$2; shift ;;
	--measure) MEASURE=$2; shift ;;
	--runs) RUNS=$2; shift ;;
	--turnover) # N optional: 5,000
		if [ $# -gt 1 ] && isnum "$2"; then TURNOVER=$2; shift; else TURNOVER=5000; fi ;;
	--first) FIRST=$2; shift ;;
	--chunk) CHUNK=$2; shift ;;
	--min-job-age) MINJOBAGE=$2; shift ;;
	--base) BASE=$2; shift ;;
	--debug) PROFILE=debug ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "slurm-bench: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
for v in JOBS MEASURE TURNOVER FIRST CHUNK; do
	isnum "${!v}" || { echo "slurm-bench: --${v,,} wants a number, got '${!v}'" >&2; exit 2; }
done
[ -z "$NODES" ] || isnum "$NODES" || { echo "slurm-bench: --nodes wants a number" >&2; exit 2; }
[ -z "$MINJOBAGE" ] || isnum "$MINJOBAGE" || { echo "slurm-bench: --min-job-age wants a number" >&2; exit 2; }
[ "$CHUNK" -gt 0 ] || { echo "slurm-bench: --chunk must be positive" >&2; exit 2; }
IFS=, read -r -a RUN_LIST <<<"$RUNS"
for r in "${RUN_LIST[@]}"; do
	case "$r" in backfill|easy|conservative) ;;
	*) echo "slurm-bench: --runs: unknown run '$r' (backfill, easy, conservative)" >&2; exit 2 ;;
	esac
done
[ ${#RUN_LIST[@]} -gt 0 ] || { echo "slurm-bench: --runs is empty" >&2; exit 2; }
if [ "$TURNOVER" -gt 0 ]; then
	: "${NODES:=64}"
	[ "$FIRST" -le "$TURNOVER" ] || { echo "slurm-bench: --first exceeds --turnover" >&2; exit 2; }
else
	: "${NODES:=256}"
fi
say() { printf 'slurm-bench: %s\n' "$*" >&2; }
build_library() {
	if [ "$PROFILE" = release ]; then cargo build --release --lib -q; else cargo build --lib -q; fi
}
if [ "$SLURM24" = 1 ]; then
	# Built here (the root has no Rust), then this script again in there.
	say "building the library ($PROFILE); the runs on Slurm 24.11 in the Debian 13 root"
	build_library
	root=$(scripts/slurm24-root.sh make)
	inner=(--built)
	[ -n "$BASE" ] || inner+=(--base "$PWD/target/slurm-bench-24-$$")
	for a in "${ORIG[@]}"; do [ "$a" = --slurm24 ] || inner+=("$a"); done
	exec scripts/slurm24-root.sh run "$root" -- scripts/slurm-bench.sh "${inner[@]}"
fi
[ -n "$BASE" ] || BASE=/tmp/mauisched-bench-$$
mkdir -p "$BASE"
BASE=$(cd "$BASE" && pwd -P)

reason=$(tests/slurm/cluster.sh preflight) || { echo "slurm-bench: $reason" >&2; exit 1; }
SLURM_VERSION=$(slurmctld -V | awk '{ print $2 }')

# The cluster now up, stopped on any exit (the watchdog, --owner-pid $$,
# covers a kill -9 of this script).
CURRENT="" SLEEP_PID=""
stop_current() {
	[ -z "$SLEEP_PID" ] || kill "$SLEEP_PID" 2>/dev/null || true
	if [ -n "$CURRENT" ]; then
		tests/slurm/cluster.sh stop "$CURRENT" >/dev/null 2>&1 || say "stop $CURRENT failed"
		CURRENT=""
	fi
	unset SLURM_CONF
}
trap 'stop_current' EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ build
say "building the library ($PROFILE), the plugins and the submitter"
[ "$BUILT" = 1 ] || build_library
PLUGINS=$BASE/plugins
mkdir -p "$PLUGINS"
make -s -C c-shim/slurm O="$PLUGINS"
cp "target/$PROFILE/libmauisched.so" "$PLUGINS/libmauisched.so.1"
gcc -O2 -o "$BASE/submit_many" tests/slurm/submit_many.c -lslurm
tests/slurm/users.sh ensure 2 >/dev/null

BF_MAX_JOB_TEST=$(( JOBS + 100 ))

# ------------------------------------------------------------ slurmctld
ctld_pid() { cat "$1/pids/slurmctld"; }
ctld_ticks() { # utime + stime, clock ticks (fields 14, 15; comm has no spaces)
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$(ctld_pid "$1")/stat"
}
ctld_kb() { # ctld_kb BASE VmHWM|VmRSS
	awk -v k="$2:" '$1 == k { print $2 }' "/proc/$(ctld_pid "$1")/status"
}
CLK_TCK=$(getconf CLK_TCK)

# start_cluster RUN BASE [cluster.sh start options...]: a fresh cluster for
# RUN (backfill | easy | conservative), with its scheduler's settings.
# In a session of its own: a Ctrl-C at the terminal reaches this script
# (whose trap stops the cluster cleanly: scancel, scontrol shutdown), not
# slurmctld, which would otherwise die at once and leave every slurmd to
# be waited for (10 s each) by the teardown.
start_cluster() {
	local run=$1 c=$2 depth; shift 2
	mkdir -p "$c"
	CURRENT=$c
	case "$run" in
	backfill)
		setsid -w tests/slurm/cluster.sh start "$c" "$NODES" "$@" --sched sched/backfill \
			--plugin-dir "$PLUGINS" --owner-pid $$ --max-life 7200 \
			--sched-params "bf_interval=10,bf_max_job_test=$BF_MAX_JOB_TEST,bf_continue,sched_interval=2" \
			>/dev/null ;;
	easy|conservative)
		if [ "$run" = easy ]; then depth=1; else depth=$BF_MAX_JOB_TEST; fi
		cat >"$c/maui.cfg" <<-CFG
		JOBNODEMATCHPOLICY EXACTNODE
		RMPOLLINTERVAL 00:00:10
		RESERVATIONDEPTH $depth
		RESDEPTH $(( depth > 24 ? depth : 24 ))
		BACKFILLPOLICY FIRSTFIT
		QUEUETIMEWEIGHT 1
		CFG
		setsid -w tests/slurm/cluster.sh start "$c" "$NODES" "$@" --sched sched/maui --job-submit maui \
			--plugin-dir "$PLUGINS" --owner-pid $$ --max-life 7200 \
			--sched-params "maui_config=$c/maui.cfg,maui_library=$PLUGINS/libmauisched.so.1,sched_interval=-1,defer" \
			>/dev/null ;;
	esac
	export SLURM_CONF=$c/etc/slurm.conf
}

# ============================================================== turnover
if [ "$TURNOVER" -gt 0 ]; then
	awk -v n="$TURNOVER" 'BEGIN { for (i = 0; i < n; i++) printf "t%d 16 1 100 1 0 1\n", i }' \
		>"$BASE/turnover.all"
	extra=()
	[ -z "$MINJOBAGE" ] || extra=(--extra "MinJobAge=$MINJOBAGE")
	# drain LIMIT_S: until no job is pending, running or completing.
	drain() {
		local deadline=$(( $(date +%s) + $1 )) n
		while :; do
			n=$(squeue -h -t PD,R,CG,CF,S -o %i 2>/dev/null | wc -l) || n=-1
			[ "$n" -eq 0 ] && return 0
			[ "$(date +%s)" -lt "$deadline" ] || { say "queue not drained after $1 s ($n jobs left)"; return 1; }
			sleep 1
		done
	}
	declare -A T_FIRST T_LAST T_AGE T_SEC T_OK T_START
	for run in "${RUN_LIST[@]}"; do
		c=$BASE/turnover-$run
		say "turnover, $run: $TURNOVER whole-node jobs of 0 s on $NODES nodes, chunks of $CHUNK"
		start_cluster "$run" "$c" "${extra[@]}"
		T_AGE[$run]=$(scontrol show config | awk -F= '/^MinJobAge/ { gsub(/ /, "", $2); print $2 }')
		T_START[$run]=$(( $(ctld_kb "$c" VmRSS) / 1024 ))
		T_OK[$run]=yes T_FIRST[$run]="-"
		t0=$(date +%s) done_n=0 series="" rss="-"
		while [ "$done_n" -lt "$TURNOVER" ]; do
			# Chunks end at --first exactly, so that point is measured.
			if [ "$done_n" -lt "$FIRST" ]; then
				n=$(( FIRST - done_n < CHUNK ? FIRST - done_n : CHUNK ))
			else
				n=$(( TURNOVER - done_n < CHUNK ? TURNOVER - done_n : CHUNK ))
			fi
			sed -n "$(( done_n + 1 )),$(( done_n + n ))p" "$BASE/turnover.all" >"$c/chunk"
			runuser -u mauitest1 -- env SLURM_CONF="$SLURM_CONF" "$BASE/submit_many" "$c" \
				<"$c/chunk" >>"$c/ids" 2>>"$c/submit.err" || { say "submission refused (see $c/submit.err)"; T_OK[$run]=no; break; }
			done_n=$(( done_n + n ))
			drain $(( 120 + n )) || { T_OK[$run]=no; break; }
			rss=$(( $(ctld_kb "$c" VmRSS) / 1024 ))
			series+=" $done_n:$rss"
			[ "$done_n" -ne "$FIRST" ] || T_FIRST[$run]=$rss
		done
		T_LAST[$run]=$rss
		T_SEC[$run]=$(( $(date +%s) - t0 ))
		say "$run: VmRSS MB after jobs:$series"
		echo "$series" >"$c/rss-series"
		stop_current
	done
	echo
	echo "slurmctld VmRSS as jobs pass through: Slurm $SLURM_VERSION, $NODES nodes of 16 CPUs, whole-node jobs of 0 s in chunks of $CHUNK, each drained before the next ($(nproc) cores; library: $PROFILE)"
	printf '%-14s %10s %14s %14s %9s %10s %9s\n' run "start MB" "after $FIRST MB" "after $TURNOVER MB" "growth" "MinJobAge" "time s"
	for run in "${RUN_LIST[@]}"; do
		g=$(awk -v a="${T_FIRST[$run]}" -v b="${T_LAST[$run]}" 'BEGIN { if (a + 0 > 0) printf "%+.0f%%", (b - a) * 100 / a; else print "-" }')
		[ "${T_OK[$run]}" = yes ] || g="$g (incomplete)"
		printf '%-14s %10s %14s %14s %9s %10s %9s\n' "$run" "${T_START[$run]}" "${T_FIRST[$run]}" "${T_LAST[$run]}" "$g" "${T_AGE[$run]}" "${T_SEC[$run]}"
	done
	echo "start: after the cluster came up; after K: once the first K jobs have ended and the queue is empty; growth: from after $FIRST to after $TURNOVER."
	echo "MinJobAge: how long slurmctld keeps a finished job (its record counts in the RSS until then); time s: first submission to the last drain."
	echo
	say "kept in $BASE (turnover-*/rss-series); remove it when done"
	exit 0
fi

# ================================================================= bench
# ------------------------------------------------------------------ queue
# Deterministic: the same queue for every run. Columns are
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
# Finished jobs must outlive the window to be counted.
AGE=$(( MEASURE + 120 > 300 ? MEASURE + 120 : 300 ))

submit_all() {
	local c=$1 u
	for u in 1 2; do
		runuser -u "mauitest$u" -- env SLURM_CONF="$c/etc/slurm.conf" \
			"$BASE/submit_many" "$c" <"$BASE/queue.$u" >"$c/ids.$u" 2>"$c/submit.$u.err" &
	done
	wait
}

# window_stats C T0 T1: "UTIL_PCT STARTED ALLOC_CPU_S TOTAL_CPUS" from what
# Slurm reports at the end of the window (see the header).
window_stats() {
	local c=$1 t0=$2 t1=$3 total
	total=$(sinfo -h -o %C | awk -F/ '{ print $4 }')
	SLURM_TIME_FORMAT=%s squeue -h -t all -o '%i|%T|%S|%e|%C' >"$c/jobs.txt"
	awk -F'|' -v t0="$t0" -v t1="$t1" -v tot="$total" '
		$2 != "PENDING" && $3 ~ /^[0-9]+$/ {
			s = $3 + 0; e = ($4 ~ /^[0-9]+$/) ? $4 + 0 : t1
			if ($2 == "RUNNING" || $2 == "COMPLETING" || e > t1) e = t1
			if (s < t0) s = t0
			if (s >= t0 && $3 + 0 <= t1) started++
			if (e > s) cs += (e - s) * $5 }
		END { w = t1 - t0; printf "%.1f %d %d %d\n", (tot > 0 && w > 0) ? cs * 100 / (tot * w) : 0, started, cs, tot }' "$c/jobs.txt"
}

# sd FILE SECTION KEY: a number from sdiag's SECTION
sd() {
	awk -v sec="$2" -v key="$3" '
		index($0, sec) { on = 1; next }
		on && /statistics/ { on = 0 }
		on { split($0, a, ":"); k = a[1]; gsub(/^[ \t]+|[ \t]+$/, "", k)
		     if (k == key) { v = a[2]; gsub(/[^0-9.]/, "", v); print v; exit } }' "$1"
}
us_ms() { awk -v u="${1:-0}" 'BEGIN { printf "%.1f", u / 1000 }'; }

declare -A R_STARTS R_UTIL R_STARTED R_CPU R_HWM R_RSS R_CYC R_MEAN R_MAX R_REAS R_APPLY R_LOOK R_BF R_WIN
i=0
for run in "${RUN_LIST[@]}"; do
	i=$(( i + 1 ))
	c=$BASE/$run
	say "$i/${#RUN_LIST[@]}: $run on $NODES nodes, $JOBS jobs, ${MEASURE} s"
	start_cluster "$run" "$c" "${NODE_ARGS[@]}" --extra "MinJobAge=$AGE"
	log_from=$(( $(wc -l <"$c/log/slurmctld.log") + 1 ))
	[ "$run" != backfill ] || sdiag -r >/dev/null
	ticks0=$(ctld_ticks "$c")
	t0=$(date +%s)
	submit_all "$c"
	# In the background: a signal's trap runs at once, not after the sleep.
	sleep $(( t0 + MEASURE - $(date +%s) > 0 ? t0 + MEASURE - $(date +%s) : 0 )) &
	SLEEP_PID=$!
	wait "$SLEEP_PID"
	SLEEP_PID=""
	t1=$(date +%s)
	ticks1=$(ctld_ticks "$c")
	log_to=$(wc -l <"$c/log/slurmctld.log")
	R_HWM[$run]=$(( $(ctld_kb "$c" VmHWM) / 1024 ))
	R_RSS[$run]=$(( $(ctld_kb "$c" VmRSS) / 1024 ))
	read -r util started _ _ <<<"$(window_stats "$c" "$t0" "$t1")"
	R_UTIL[$run]=$util R_STARTED[$run]=$started
	R_WIN[$run]=$(( t1 - t0 ))
	echo "t0=$t0 t1=$t1 total_cpus=$(sinfo -h -o %C | awk -F/ '{ print $4 }')" >"$c/window"
	R_CPU[$run]=$(awk -v d=$(( ticks1 - ticks0 )) -v hz="$CLK_TCK" 'BEGIN { printf "%.1f", d / hz }')
	if [ "$run" = backfill ]; then
		sdiag >"$c/sdiag.txt"
		f=$c/sdiag.txt
		R_CYC[$run]="$(sd "$f" "Backfilling stats" "Total cycles")/$(sd "$f" "Main schedule statistics" "Total cycles")"
		R_MEAN[$run]="$(us_ms "$(sd "$f" "Backfilling stats" "Mean cycle")")/$(us_ms "$(sd "$f" "Main schedule statistics" "Mean cycle")")"
		R_MAX[$run]="$(us_ms "$(sd "$f" "Backfilling stats" "Max cycle")")/$(us_ms "$(sd "$f" "Main schedule statistics" "Max cycle")")"
		R_REAS[$run]="-"
		R_APPLY[$run]="-"
		R_LOOK[$run]="$(sd "$f" "Backfilling stats" "Depth Mean") ($(sd "$f" "Backfilling stats" "Depth Mean (try depth)")) / $(sd "$f" "Main schedule statistics" "Mean depth cycle")"
		R_BF[$run]=$(sd "$f" "Backfilling stats" "Total backfilled jobs (since last slurm start)")
		R_STARTS[$run]="-"
	else
		# Per iteration inside the window: engine, total, and total less
		# the reason updates (the decision: snapshot, engine, starts).
		sed -n "${log_from},${log_to}p" "$c/log/slurmctld.log" >"$c/slurmctld.window.log"
		read -r m_n m_eng_mean m_eng_max m_tot_mean m_tot_max m_dec_mean m_dec_max m_idle m_app_mean m_app_max <<<"$(
			grep 'sched/maui: iteration [0-9]*:.* times: ' "$c/slurmctld.window.log" | awk '
				{ for (i = 1; i <= NF; i++) {
					if ($i == "engine") e = $(i + 1) + 0
					if ($i == "(reasons") r = $(i + 1) + 0
					if ($i == "total") t = $(i + 1) + 0
					if ($i == "idle" && $(i - 1) ~ /^[0-9]+$/) id = $(i - 1) + 0 }
				  d = t - r
				  n++; se += e; st += t; sd += d; sr += r
				  if (e > me) me = e; if (t > mt) mt = t; if (d > md) md = d; if (id > mi) mi = id; if (r > mr) mr = r }
				END { if (n) printf "%d %.1f %.1f %.1f %.1f %.1f %.1f %d %.1f %.1f\n", n, se / n, me, st / n, mt, sd / n, md, mi, sr / n, mr
				      else print "0 0 0 0 0 0 0 0 0 0" }')"
		R_CYC[$run]=$m_n
		R_MEAN[$run]="$m_dec_mean ($m_eng_mean)"
		R_MAX[$run]="$m_dec_max ($m_eng_max)"
		R_REAS[$run]="$m_tot_mean/$m_tot_max"
		R_APPLY[$run]="$m_app_mean/$m_app_max"
		R_LOOK[$run]="all ($m_idle idle max)"
		R_BF[$run]="-"
		# Starts the plugin issued, and how many of them were for a job
		# it had already issued a start for (issue 25: none should be).
		grep -o 'sched/maui: start job [0-9]*' "$c/slurmctld.window.log" | awk '{ print $4 }' >"$c/starts.txt" || true
		R_STARTS[$run]="$(wc -l <"$c/starts.txt") ($(sort "$c/starts.txt" | uniq -d | wc -l))"
	fi
	cp "$c/log/slurmctld.log" "$c/slurmctld.log.saved"
	stop_current
done

# ----------------------------------------------------------------- report
echo
echo "Slurm $SLURM_VERSION on $NODES nodes, $JOBS jobs submitted at once, window ${MEASURE} s from the submission ($(nproc) cores; library: $PROFILE; bf_max_job_test $BF_MAX_JOB_TEST)"
fmt='%-13s %6s %6s %8s %9s %8s %6s %6s %10s %16s %20s %12s %12s %24s %10s\n'
# shellcheck disable=SC2059
printf "$fmt" run window "util%" started "starts(dup)" "ctldCPUs" peakMB endMB cycles "mean ms" "max ms" "w/reasons" "apply ms" "looked at" backfilled
for run in "${RUN_LIST[@]}"; do
	name=$run
	case "$run" in easy) name="maui EASY" ;; conservative) name="maui cons" ;; esac
	# shellcheck disable=SC2059
	printf "$fmt" "$name" "${R_WIN[$run]}" "${R_UTIL[$run]}" "${R_STARTED[$run]}" "${R_STARTS[$run]}" "${R_CPU[$run]}" "${R_HWM[$run]}" "${R_RSS[$run]}" \
		"${R_CYC[$run]}" "${R_MEAN[$run]}" "${R_MAX[$run]}" "${R_REAS[$run]}" "${R_APPLY[$run]}" "${R_LOOK[$run]}" "${R_BF[$run]}"
done
cat <<LEGEND
  runs: backfill = sched/backfill (conservative up to bf_max_job_test); maui EASY = sched/maui,
    RESERVATIONDEPTH 1; maui cons = sched/maui, RESERVATIONDEPTH $BF_MAX_JOB_TEST. Same nodes, queue, window.
  window: seconds from just before the submission to the measurement (--measure, or a little more).
  util%: allocated CPU-seconds / (total CPUs x window), from squeue's StartTime, EndTime (a running
    job: the window's end) and allocated CPUs of every job not pending at the window's end.
  started: jobs whose StartTime falls in the window. starts(dup): maui's logged starts in the
    window (jobs started more than once). ctldCPUs: slurmctld user+system CPU seconds over the
    window (/proc stat). peakMB / endMB: slurmctld VmHWM / VmRSS at the window's end.
  cycles, mean ms, max ms: backfill = backfill/main scheduler cycles (sdiag); maui = iterations,
    decision time (engine time) per iteration. w/reasons: maui's mean/longest whole iteration.
  apply ms: maui's mean/longest time writing every waiting job's reason, StartTime and priority
    in place (the iteration line's "reasons"; issue 25 aims at <= 100 ms on average with 3,000 waiting).
  looked at: backfill = jobs per backfill cycle (tried) / per main cycle; maui = whole queue.
  backfilled: jobs Slurm's backfill started (sdiag).
LEGEND
echo
say "kept in $BASE (per run: jobs.txt, sdiag.txt, slurmctld.log.saved); remove it when done"
