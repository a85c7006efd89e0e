# Shared functions of the Slurm test harness (sourced, not run).
#
# A test cluster lives entirely under one directory, BASE:
#   BASE/etc/slurm.conf   BASE/state (StateSaveLocation)   BASE/spool/<node>
#   BASE/run (daemons' pid files, munge socket)   BASE/pids (ours: the
#   pids teardown waits for)   BASE/log   BASE/munge (key)
#   BASE/jobs (1777: working and output directory of test jobs)
#   BASE/plugins (our plugins, first in PluginDir)   BASE/ports
# Every daemon of the cluster is started with MAUISCHED_SLURM_BASE=BASE in
# its environment (slurmstepd inherits it from slurmd), and every job
# submitted through job.sh with MAUISCHED_SLURM_JOB=BASE: teardown finds and
# kills whatever is left by those markers, so nothing outlives the cluster.

# shellcheck shell=bash

# shellcheck disable=SC2034 # used by the scripts that source this file
HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Exit code meaning "cannot run here" (automake's SKIP convention).
# shellcheck disable=SC2034 # used by the scripts that source this file
EXIT_SKIP=77

log() { printf '%s: %s\n' "${HARNESS_NAME:-slurm-harness}" "$*" >&2; }
die() { log "error: $*"; exit 1; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
fmt_ms() { printf '%d.%03d' $(( $1 / 1000 )) $(( $1 % 1000 )); }

# wait_for TIMEOUT_S WHAT CMD...: run CMD every 0.1 s until it succeeds;
# fail (return 1) after TIMEOUT_S seconds, or at once when CMD exits with 3,
# which the harness's conditions use for "never: the daemon died". Every
# wait in the harness is one of these.
wait_for() {
	local timeout=$1 what=$2 rc deadline
	shift 2
	deadline=$(( $(now_ms) + timeout * 1000 ))
	while :; do
		rc=0
		"$@" >/dev/null 2>&1 || rc=$?
		[ "$rc" -ne 0 ] || return 0
		if [ "$rc" -eq 3 ]; then
			log "gave up waiting for $what: a daemon died"
			return 1
		fi
		if [ "$(now_ms)" -ge "$deadline" ]; then
			log "timed out after ${timeout}s waiting for $what"
			return 1
		fi
		sleep 0.1
	done
}

# The real daemons. Slurm 24.11 decides which daemon it is from argv[0]
# (started as slurmctld-wlm it refuses to run: "certmgr plugin only allowed
# on slurmctld and slurmd"), so the plain name comes first, when it is the
# alternatives link to the real -wlm build. Debian's slurm-wlm-emulator
# (never install it) points the plain names at front-end builds that cannot
# start on Debian 12; then the -wlm names are the real ones (22.05 runs
# them under any name).
pick_bin() {
	if [ -x "/usr/sbin/$1" ] && [ -x "/usr/sbin/$1-wlm" ] &&
		[ "$(readlink -f "/usr/sbin/$1")" = "$(readlink -f "/usr/sbin/$1-wlm")" ]; then
		echo "/usr/sbin/$1"
	elif [ -x "/usr/sbin/$1-wlm" ]; then echo "/usr/sbin/$1-wlm"
	elif command -v "$1" >/dev/null 2>&1; then command -v "$1"
	elif [ -x "/usr/sbin/$1" ]; then echo "/usr/sbin/$1"
	else return 1; fi
}

# The installed Slurm's version (22.05.8, 24.11.5, ...).
slurm_release() { "$(pick_bin slurmctld)" -V 2>/dev/null | awk '{print $2}'; }

# A cluster's Slurm release, as cluster.sh start recorded it.
base_release() { cat "$BASE/release" 2>/dev/null || slurm_release; }

# Since 23.11 `scontrol reconfigure` restarts slurmctld (a new process; the
# plugins' fini and init run, sched_p_reconfig does not), and the daemons
# re-exec themselves with new pids.
reconfigure_restarts() { case "$(base_release)" in 22.05.*) return 1 ;; *) return 0 ;; esac; }

# Debian's own plugin directory (multiarch path), searched after ours.
slurm_plugin_dir() {
	local f
	for f in /usr/lib/*/slurm-wlm/select_cons_tres.so /usr/lib/slurm/select_cons_tres.so \
		/usr/lib64/slurm/select_cons_tres.so; do
		[ -f "$f" ] && { dirname "$f"; return 0; }
	done
	return 1
}

# base_dir PATH: the canonical absolute BASE (markers compare it textually).
base_dir() {
	[ -n "${1:-}" ] || die "BASE directory missing"
	mkdir -p "$1"
	(cd "$1" && pwd -P)
}

use_cluster() {
	BASE=$1
	export SLURM_CONF="$BASE/etc/slurm.conf"
}

# A zombie counts as gone: it holds no port or file, and the reaper of
# daemonized processes (init, or a container's) may take seconds to collect it.
pid_alive() {
	[ -n "${1:-}" ] && grep -q '^State:[[:space:]]*[^Z[:space:]]' "/proc/$1/status" 2>/dev/null
}
pid_gone() { ! pid_alive "$1"; }
pid_of() { if [ -f "$1" ]; then cat "$1" 2>/dev/null || true; fi; }

# marked_pids BASE: processes carrying this cluster's daemon or job marker,
# except this shell and its ancestors.
marked_pids() {
	local base=$1 f pid self_chain=" $$ ${BASHPID:-$$} " p
	p=$PPID
	while [ -n "$p" ] && [ "$p" -gt 1 ] 2>/dev/null; do
		self_chain+="$p "
		p=$(awk '/^PPid:/ {print $2}' "/proc/$p/status" 2>/dev/null || true)
	done
	# -z: NUL-separated environ entries are "lines"; -x: the whole entry.
	# Exit status 1 (no match) and 2 (a process vanished mid-scan) are normal.
	{ grep -lzxF -e "MAUISCHED_SLURM_BASE=$base" -e "MAUISCHED_SLURM_JOB=$base" \
		/proc/[0-9]*/environ 2>/dev/null || true; } | while read -r f; do
		pid=${f#/proc/}; pid=${pid%/environ}
		case "$self_chain" in *" $pid "*) continue ;; esac
		echo "$pid"
	done
}
