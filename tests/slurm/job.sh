#!/usr/bin/env bash
# Job helpers for a cluster started by cluster.sh.
#
# usage:
#   job.sh submit BASE USER [SBATCH ARGS...]   submit as USER, print the job id
#          (working and output directory BASE/jobs; without a script or
#          --wrap the job is `sleep 300`)
#   job.sh as BASE USER CMD...                  run CMD as USER (root: as is)
#          against the cluster; its output and exit status pass through
#   job.sh wait BASE JOBID STATE[,STATE..] TIMEOUT_S
#          wait until the job is in one of the states (PENDING, RUNNING,
#          COMPLETED, ...); prints the state; exit 1 on timeout
#   job.sh field BASE JOBID FIELD               one field of `scontrol show
#          job` (JobState, Reason, Priority, NodeList, StartTime, ...)
#   job.sh show BASE JOBID                      the whole record, one line
set -euo pipefail
HARNESS_NAME=job.sh
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# run_as USER CMD...: USER's identity, the cluster's SLURM_CONF, and the
# job marker, which sbatch exports into the job so teardown can find it.
run_as() {
	local user=$1; shift
	# A directory every test user can enter (the caller's may be private).
	cd "$BASE/jobs"
	if [ "$user" = root ] || [ "$user" = "$(id -un)" ]; then
		env SLURM_CONF="$SLURM_CONF" MAUISCHED_SLURM_JOB="$BASE" "$@"
	else
		runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" MAUISCHED_SLURM_JOB="$BASE" "$@"
	fi
}

show() { timeout 10 scontrol show job -o "$1"; }

field() {
	local rec
	rec=$(show "$1") || return 1
	# Values do not contain blanks for the fields tests read.
	grep -oE "(^| )$2=[^ ]*" <<<"$rec" | head -n 1 | sed -E "s/^ ?$2=//"
}

submit() {
	local user=$1; shift
	local args=("$@") has_cmd=0 a
	for a in "${args[@]}"; do
		case "$a" in --wrap|--wrap=*|/*|./*) has_cmd=1 ;; esac
	done
	[ "$has_cmd" = 1 ] || args+=(--wrap "sleep 300")
	(run_as "$user" timeout 30 sbatch --parsable \
		-D "$BASE/jobs" -o "$BASE/jobs/slurm-%j.out" "${args[@]}") | cut -d';' -f1
}

wait_state() {
	local id=$1 want=$2 timeout=$3 deadline state=""
	deadline=$(( $(now_ms) + timeout * 1000 ))
	while :; do
		state=$(field "$id" JobState 2>/dev/null || true)
		if [ -n "$state" ] && [[ ",$want," == *",$state,"* ]]; then
			echo "$state"; return 0
		fi
		if [ "$(now_ms)" -ge "$deadline" ]; then
			log "job $id: still ${state:-unknown} (reason $(field "$id" Reason 2>/dev/null || echo ?)) after ${timeout}s; wanted $want"
			return 1
		fi
		sleep 0.1
	done
}

cmd=${1:-}
[ $# -ge 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
use_cluster "$(base_dir "$2")"
[ -f "$SLURM_CONF" ] || die "no cluster in $BASE"
shift 2
case "$cmd" in
submit) [ $# -ge 1 ] || die "submit BASE USER [ARGS]"; submit "$@" ;;
as) [ $# -ge 2 ] || die "as BASE USER CMD..."; run_as "$@" ;;
wait) [ $# -eq 3 ] || die "wait BASE JOBID STATES TIMEOUT"; wait_state "$@" ;;
field) [ $# -eq 2 ] || die "field BASE JOBID FIELD"; field "$@" ;;
show) [ $# -eq 1 ] || die "show BASE JOBID"; show "$1" ;;
*) die "unknown command $cmd" ;;
esac
