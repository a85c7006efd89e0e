#!/usr/bin/env bash
# A throw-away Slurm 22.05 or 24.11 cluster on this host (or in the Debian 13
# root of scripts/slurm24-root.sh) for end-to-end tests:
# munged (private key and socket) + slurmctld + N slurmd, all on 127.0.0.1,
# each slurmd being one "node" (slurmd -N <name>; Debian's slurmd is built
# for several per host). No systemd, nothing outside BASE is written except
# the test users (users.sh) and a lock file in /tmp.
#
# usage:
#   cluster.sh preflight                 exit 0 if a cluster can run here
#                                        (prints "Slurm VERSION"), 77 (skip)
#                                        with the reason otherwise; 1 if
#                                        MAUISCHED_SLURM_RELEASE (22.05,
#                                        24.11) names another release
#   cluster.sh start BASE N [options]    bring the cluster up (N nodes)
#   cluster.sh stop BASE                 tear everything down (idempotent)
#   cluster.sh restart-ctld BASE         restart slurmctld only (state kept)
#   cluster.sh stop-ctld BASE            stop slurmctld only (clean shutdown)
#   cluster.sh start-ctld BASE           start it again (state recovered)
#   cluster.sh reconfigure BASE          scontrol reconfigure, and on 24.11
#                                        wait for the slurmctld it restarts
#   cluster.sh status BASE               what runs; exit 0 only if all is up
#   cluster.sh logs BASE                 dump state and log tails to stdout
#
# start options:
#   --node-spec FILE    node groups, one per line: COUNT KEY=VALUE...
#                       (slurm.conf NodeName keywords: CPUs, RealMemory,
#                       Features, Weight, Gres, ...); '#' comments
#                       Gres= gets a generated gres.conf with fake GPU
#                       devices under BASE/fakedev (tests/slurm/README.md)
#   --node 'COUNT K=V...'  one more group (repeatable, after the file's)
#                       Nodes are n001..nNNN in spec order; nodes the spec
#                       does not cover get CPUs=16 RealMemory=64000.
#   --sched TYPE        SchedulerType (default sched/builtin)
#   --job-submit LIST   JobSubmitPlugins (default: none)
#   --plugin-dir DIR    our plugins, searched before Debian's (default BASE/plugins)
#   --sched-params STR  SchedulerParameters (default batch_sched_delay=0,
#                       sched_interval=2: a main scheduling pass at least
#                       every 2 s and on every event, so tests wait little)
#   --extra LINE        extra slurm.conf line (repeatable; e.g. a partition;
#                       one with Default=YES replaces the default partition
#                       "batch", Nodes=ALL)
#   --extra-file FILE   extra slurm.conf lines from a file
#   --ctld-env K=V      environment for slurmctld (repeatable; for plugins)
#   --cred-expire SECS  AuthInfo cred_expire (Slurm's default 120; at least
#                       5): how long a requeued batch job waits before it
#                       may start again (its begin time is set that far on)
#   --owner-pid PID     tear the cluster down when PID exits
#   --max-life SECS     tear the cluster down after SECS (default 3600)
#   --timeout SECS      bound on bring-up (default 60 + N/4)
#
# Ports are chosen free under a lock, so parallel clusters do not clash.
# On any failure during start the partial cluster is torn down.
set -euo pipefail
HARNESS_NAME=cluster.sh
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LOCK_FILE=${MAUISCHED_SLURM_LOCK:-/tmp/mauisched-slurm.lock}
PORT_LO=20000 PORT_HI=32000   # below Linux's ephemeral range (32768+)

# --------------------------------------------------------------- preflight
preflight() {
	local missing=() b
	if [ "$(id -u)" -ne 0 ]; then
		echo "Slurm end-to-end tests need root (slurmd runs jobs as test users, and the test users are created); running as uid $(id -u)"
		return "$EXIT_SKIP"
	fi
	for b in slurmctld slurmd slurmstepd; do pick_bin "$b" >/dev/null || missing+=("$b"); done
	for b in munged munge sbatch scontrol sinfo squeue scancel gcc make runuser flock useradd timeout; do
		command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || missing+=("$b")
	done
	[ -f /usr/include/slurm/slurm.h ] || missing+=("/usr/include/slurm/slurm.h")
	slurm_plugin_dir >/dev/null || missing+=("Slurm's plugins (select_cons_tres.so)")
	if [ ${#missing[@]} -gt 0 ]; then
		echo "Slurm end-to-end tests need: ${missing[*]} (scripts/deps.sh test installs them)"
		return "$EXIT_SKIP"
	fi
	local v
	v=$(slurm_release)
	case "$v" in
	22.05.*|24.11.*) ;;
	*) echo "Slurm end-to-end tests are written for Slurm 22.05 and 24.11; found '${v:-?}'"
	   return "$EXIT_SKIP" ;;
	esac
	# The caller asked for one release (the 24.11 run in the Debian 13
	# root): anything else here is a broken setup, not a reason to skip.
	if [ -n "${MAUISCHED_SLURM_RELEASE:-}" ]; then
		case "$v" in
		"$MAUISCHED_SLURM_RELEASE"|"$MAUISCHED_SLURM_RELEASE".*) ;;
		*) echo "MAUISCHED_SLURM_RELEASE=$MAUISCHED_SLURM_RELEASE but the Slurm here is $v"
		   return 1 ;;
		esac
	fi
	echo "Slurm $v"
	return 0
}

# ------------------------------------------------------------------- ports
# used_ports: local ports of all TCP sockets, as 4-digit upper-case hex
# (the form of /proc/net/tcp; comparing text avoids converting hundreds).
used_ports() {
	local f
	for f in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$f" ] && awk 'NR > 1 { n = split($2, a, ":"); print toupper(a[n]) }' "$f"
	done
	return 0
}

# choose_ports N: print the first port of a free block of N+1 ports.
choose_ports() {
	local n=$1 size nblocks start i b p ok
	size=$(( (n + 1 + 99) / 100 * 100 ))
	nblocks=$(( (PORT_HI - PORT_LO) / size ))
	[ "$nblocks" -ge 1 ] || die "too many nodes for the port range"
	declare -A used=()
	for p in $(used_ports); do used[$p]=1; done
	[ ${#used[@]} -gt 0 ] || [ -r /proc/net/tcp ] || die "cannot read /proc/net/tcp"
	start=$(( RANDOM % nblocks ))
	for (( i = 0; i < nblocks; i++ )); do
		b=$(( PORT_LO + ((start + i) % nblocks) * size ))
		ok=1
		for (( p = b; p <= b + n; p++ )); do
			[ -z "${used[$(printf '%04X' "$p")]:-}" ] || { ok=0; break; }
		done
		[ "$ok" = 1 ] && { echo "$b"; return 0; }
	done
	die "no free block of $((n + 1)) ports in $PORT_LO-$PORT_HI"
}

# ------------------------------------------------------------------- nodes
# node_groups N SPEC... -> lines "NAME PORT ATTRS" for N nodes.
node_lines() {
	local n=$1 portbase=$2 width=$3; shift 3
	local idx=0 line count attrs tok c
	for line in "$@"; do
		read -r count attrs <<<"$line"
		if ! [[ $count =~ ^[1-9][0-9]*$ ]]; then die "node group '$line': COUNT must come first"; fi
		for tok in $attrs; do
			[[ $tok =~ ^[A-Za-z]+=[^[:space:]]+$ ]] || die "node group '$line': '$tok' is not KEY=VALUE"
			case "${tok%%=*}" in
			[Nn]ode[Nn]ame|[Nn]ode[Hh]ostname|[Nn]ode[Aa]ddr|[Pp]ort|[Ss]tate)
				die "node group '$line': ${tok%%=*} is set by the harness" ;;
			esac
		done
		[[ " $attrs" =~ \ [Cc][Pp][Uu][Ss]= ]] || attrs="CPUs=16 $attrs"
		[[ " $attrs" =~ \ [Rr]eal[Mm]emory= ]] || attrs="$attrs RealMemory=64000"
		for (( c = 0; c < count; c++ )); do
			idx=$(( idx + 1 ))
			[ "$idx" -le "$n" ] || die "the node spec describes more than $n nodes"
			printf 'n%0*d %d %s\n' "$width" "$idx" $(( portbase + idx )) "$attrs"
		done
	done
	for (( idx = idx + 1; idx <= n; idx++ )); do
		printf 'n%0*d %d %s\n' "$width" "$idx" $(( portbase + idx )) "CPUs=16 RealMemory=64000"
	done
}

read_spec_file() {
	local line
	[ -f "$1" ] || die "node spec $1 not found"
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		[[ $line =~ [^[:space:]] ]] || continue
		SPEC+=("$line")
	done <"$1"
}

# ------------------------------------------------------ generic resources
# Nodes whose spec has Gres= (gpu:4, gpu:a100:2,gpu:v100:2, tape:2) get a
# gres.conf line each, and GRES_TYPES the names for GresTypes=. slurmd
# drops a GPU without File= (the node then shows 0 GPUs and goes INVAL), so
# every GPU is a character device node under BASE/fakedev (no driver
# behind it; a regular file if mknod is refused, which still schedules);
# each node numbers its own from gpu0, types one after the other. Other
# names are Count= only. slurmd and slurmctld read Gres= only when they run
# under their plain names (pick_bin). tests/slurm/README.md has the story.
write_gres_conf() {
	local name _port attrs tok item gname gtype gcnt dev k file items parts
	local lines=()
	GRES_TYPES=""
	rm -f "$BASE/etc/gres.conf"
	while read -r name _port attrs; do
		for tok in $attrs; do
			case "${tok%%=*}" in [Gg][Rr][Ee][Ss]) ;; *) continue ;; esac
			dev=0
			IFS=, read -r -a items <<<"${tok#*=}"
			for item in "${items[@]}"; do
				IFS=: read -r -a parts <<<"$item"
				gname=${parts[0]} gtype="" gcnt=1
				case ${#parts[@]} in
				1) ;;
				2) gcnt=${parts[1]} ;;
				3) gtype=${parts[1]} gcnt=${parts[2]} ;;
				*) die "node $name: Gres item '$item' is not name[:type][:count]" ;;
				esac
				[[ $gcnt =~ ^[0-9]+$ ]] || die "node $name: Gres item '$item': the count must be a number here"
				[[ ",$GRES_TYPES," == *",$gname,"* ]] || GRES_TYPES+="${GRES_TYPES:+,}$gname"
				if [ "$gname" != gpu ]; then
					lines+=("NodeName=$name Name=$gname ${gtype:+Type=$gtype }Count=$gcnt")
					continue
				fi
				[ "$gcnt" -gt 0 ] || continue
				mkdir -p "$BASE/fakedev"
				for (( k = dev; k < dev + gcnt; k++ )); do
					[ -e "$BASE/fakedev/gpu$k" ] && continue
					mknod "$BASE/fakedev/gpu$k" c 195 "$k" 2>/dev/null \
						|| touch "$BASE/fakedev/gpu$k"
				done
				if [ "$gcnt" -eq 1 ]; then file="gpu$dev"
				else file="gpu[$dev-$(( dev + gcnt - 1 ))]"; fi
				lines+=("NodeName=$name Name=gpu ${gtype:+Type=$gtype }File=$BASE/fakedev/$file")
				dev=$(( dev + gcnt ))
			done
		done
	done <"$BASE/nodes"
	[ ${#lines[@]} -gt 0 ] || return 0
	{
		echo "# Generated by tests/slurm/cluster.sh from the node spec's Gres="
		echo "AutoDetect=off"
		printf '%s\n' "${lines[@]}"
	} >"$BASE/etc/gres.conf"
	chmod 644 "$BASE/etc/gres.conf"
}

# -------------------------------------------------------------- slurm.conf
write_conf() {
	local host=$1 ctldport=$2 l have_types=0
	write_gres_conf
	for l in "${EXTRA[@]}"; do
		[[ $l =~ ^[[:space:]]*[Gg]res[Tt]ypes= ]] && have_types=1
	done
	{
		cat <<-EOF
		# Generated by tests/slurm/cluster.sh: a single-host test cluster,
		# one slurmd per node, every daemon on 127.0.0.1.
		ClusterName=mauitest
		SlurmctldHost=$host(127.0.0.1)
		SlurmctldPort=$ctldport
		# Bind to NodeAddr/SlurmctldHost, not 0.0.0.0
		CommunicationParameters=NoInAddrAny
		SlurmUser=root
		SlurmdUser=root
		AuthType=auth/munge
		AuthInfo=socket=$BASE/run/munge.sock${CRED_EXPIRE:+,cred_expire=$CRED_EXPIRE}
		CredType=cred/munge
		PluginDir=$PLUGIN_DIR:$DEBIAN_PLUGIN_DIR
		StateSaveLocation=$BASE/state
		SlurmdSpoolDir=$BASE/spool/%n
		SlurmctldPidFile=$BASE/run/slurmctld.pid
		SlurmdPidFile=$BASE/run/slurmd-%n.pid
		SlurmctldLogFile=$BASE/log/slurmctld.log
		SlurmdLogFile=$BASE/log/slurmd-%n.log
		SlurmctldDebug=info
		SlurmdDebug=info
		MailProg=/bin/true
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/none
		SelectType=select/cons_tres
		SelectTypeParameters=CR_Core_Memory
		# A job without --mem gets this much per CPU, not its nodes'
		# whole memory (which per-task memory cannot express)
		DefMemPerCPU=500
		SchedulerType=$SCHED
		PriorityType=priority/basic
		AccountingStorageType=accounting_storage/none
		JobAcctGatherType=jobacct_gather/none
		JobCompType=jobcomp/none
		MpiDefault=none
		ReturnToService=2
		# Nodes claim more CPUs and memory than this host has
		SlurmdParameters=config_overrides
		MaxJobCount=20000
		MinJobAge=300
		KillWait=2
		EOF
		[ -n "$JOB_SUBMIT" ] && echo "JobSubmitPlugins=$JOB_SUBMIT"
		[ -n "$SCHED_PARAMS" ] && echo "SchedulerParameters=$SCHED_PARAMS"
		[ -n "$GRES_TYPES" ] && [ "$have_types" = 0 ] && echo "GresTypes=$GRES_TYPES"
		local name port attrs
		while read -r name port attrs; do
			echo "NodeName=$name NodeHostname=$host NodeAddr=127.0.0.1 Port=$port $attrs State=UNKNOWN"
		done <"$BASE/nodes"
		if [ "$HAVE_PARTITION" = 0 ]; then
			echo "PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
		fi
		local l
		for l in "${EXTRA[@]}"; do echo "$l"; done
	} >"$BASE/etc/slurm.conf.tmp"
	chmod 644 "$BASE/etc/slurm.conf.tmp"
	mv "$BASE/etc/slurm.conf.tmp" "$BASE/etc/slurm.conf"
	# From 23.02 on slurmd always loads a cgroup plugin (autodetect by
	# default), which needs /sys/fs/cgroup; the test jobs need no cgroups
	# (proctrack/linuxproc, task/none), and the Debian 13 root mounts no
	# /sys. 22.05 knows no "disabled" and loads none here.
	rm -f "$BASE/etc/cgroup.conf"
	case "$(base_release)" in
	22.05.*) ;;
	*) echo "CgroupPlugin=disabled" >"$BASE/etc/cgroup.conf"; chmod 644 "$BASE/etc/cgroup.conf" ;;
	esac
}

# ----------------------------------------------------------------- daemons
start_munged() {
	if [ ! -f "$BASE/munge/munge.key" ]; then
		dd if=/dev/urandom of="$BASE/munge/munge.key" bs=1024 count=1 status=none
		chmod 400 "$BASE/munge/munge.key"
	fi
	env MAUISCHED_SLURM_BASE="$BASE" "$(command -v munged || echo /usr/sbin/munged)" \
		-S "$BASE/run/munge.sock" --key-file="$BASE/munge/munge.key" \
		--log-file="$BASE/log/munged.log" --pid-file="$BASE/run/munged.pid" \
		--seed-file="$BASE/munge/munged.seed" --num-threads=4 \
		</dev/null >>"$BASE/log/munged.stderr" 2>&1 9>&- \
		|| { cat "$BASE/log/munged.stderr" >&2; return 1; }
	wait_for 10 "munged" munge -S "$BASE/run/munge.sock" -n || return 1
	record_pid munged "$BASE/run/munged.pid"
}

# record_pid ROLE DAEMON_PIDFILE: keep the pid in BASE/pids/ROLE. Daemons
# delete their own pid files while they shut down; teardown must still be
# able to wait for them.
record_pid() {
	wait_for 10 "$2" test -s "$2" || return 1
	cp "$2" "$BASE/pids/$1"
}

ctld_env() {
	local kv
	echo "MAUISCHED_SLURM_BASE=$BASE"
	echo "SLURM_CONF=$SLURM_CONF"
	[ -f "$BASE/etc/ctld.env" ] && while IFS= read -r kv; do echo "$kv"; done <"$BASE/etc/ctld.env"
	return 0
}

start_slurmctld() {
	local extra_args=("$@") envs=()
	mapfile -t envs < <(ctld_env)
	env "${envs[@]}" "$(pick_bin slurmctld)" -D "${extra_args[@]}" \
		</dev/null >>"$BASE/log/slurmctld.stderr" 2>&1 9>&- &
	echo $! >"$BASE/pids/slurmctld"
	wait_for 30 "slurmctld to answer" ctld_answers || return 1
}

ctld_answers() {
	timeout 5 scontrol ping && return 0
	pid_alive "$(pid_of "$BASE/pids/slurmctld")" || return 3
	return 1
}

start_slurmd() {
	local name=$1
	mkdir -p "$BASE/spool/$name"
	env MAUISCHED_SLURM_BASE="$BASE" SLURM_CONF="$SLURM_CONF" \
		"$(pick_bin slurmd)" -N "$name" -d "$(pick_bin slurmstepd)" \
		</dev/null >>"$BASE/log/slurmd.stderr" 2>&1 9>&- || return 1
	record_pid "slurmd-$name" "$BASE/run/slurmd-$name.pid"
}

# Nodes in state IDLE exactly (not IDLE+DRAIN, ...), partition or not.
idle_count() { scontrol -o show nodes 2>/dev/null | grep -c ' State=IDLE ' || true; }
nodes_idle() {
	local f
	[ "$(idle_count)" -ne "$1" ] || return 0
	for f in "$BASE/pids/slurmctld" "$BASE"/pids/slurmd-*; do
		pid_alive "$(pid_of "$f")" || return 3
	done
	return 1
}

# Every node registered with slurmctld (none UNKNOWN or NOT_RESPONDING).
# After a restart the nodes stay so for seconds, until each slurmd
# registers again (24.11: UNKNOWN for more than 3 s), and mauisched counts
# them unavailable meanwhile.
nodes_registered() {
	local out
	out=$(timeout 5 scontrol -o show nodes 2>/dev/null) || {
		pid_alive "$(pid_of "$BASE/pids/slurmctld")" || return 3
		return 1
	}
	[ -n "$out" ] && ! grep -qE 'State=[^ ]*(UNKNOWN|NOT_RESPONDING)' <<<"$out"
}

start_watchdog() {
	# A session of its own: it must outlive the owner to clean up after it.
	MAUISCHED_SLURM_WATCHDOG=1 setsid "$HARNESS_DIR/cluster.sh" watchdog "$BASE" "$1" "$2" \
		</dev/null >>"$BASE/log/watchdog.log" 2>&1 9>&- &
	echo $! >"$BASE/pids/watchdog"
}

# watchdog BASE OWNER_PID MAX_LIFE_S: tear the cluster down when the owner
# is gone or the cluster has lived too long; quit when the cluster is
# stopped by other means (stop removes pids/watchdog).
cmd_watchdog() {
	local base=$1 owner=$2 life=$3 deadline
	deadline=$(( $(date +%s) + life ))
	while [ "$(date +%s)" -lt "$deadline" ]; do
		[ -f "$base/pids/watchdog" ] || exit 0
		if [ "$owner" != 0 ] && pid_gone "$owner"; then
			log "owner $owner gone: tearing down $base"
			exec "$HARNESS_DIR/cluster.sh" stop "$base"
		fi
		sleep 1
	done
	log "max life ($life s) reached: tearing down $base"
	exec "$HARNESS_DIR/cluster.sh" stop "$base"
}

# EXIT trap of a start that did not finish: logs first, then teardown.
start_failed() {
	local rc=$?
	[ "$rc" -ne 0 ] || return 0
	log "start failed (rc $rc): tearing down"
	cmd_logs "$BASE" >&2 || true
	cmd_stop "$BASE" >&2 || true
}

cmd_start() {
	[ $# -ge 2 ] || die "usage: cluster.sh start BASE N [options]"
	local reason rc=0
	reason=$(preflight) || rc=$?
	[ "$rc" -eq 0 ] || { echo "$reason" >&2; exit "$rc"; }
	use_cluster "$(base_dir "$1")"
	local n=$2; shift 2
	if ! [[ $n =~ ^[1-9][0-9]*$ ]]; then die "N must be a positive number of nodes"; fi
	SCHED=sched/builtin JOB_SUBMIT="" PLUGIN_DIR="$BASE/plugins"
	SCHED_PARAMS=batch_sched_delay=0,sched_interval=2 EXTRA=() SPEC=() HAVE_PARTITION=0
	CRED_EXPIRE=""
	local owner=0 life=3600 timeout=$(( 60 + n / 4 )) spec_file="" ctld_env=()
	while [ $# -gt 0 ]; do
		case "$1" in
		--node-spec) spec_file=$2; shift ;;
		--node) SPEC_EXTRA+=("$2"); shift ;;
		--sched) SCHED=$2; shift ;;
		--job-submit) JOB_SUBMIT=$2; shift ;;
		--plugin-dir) PLUGIN_DIR=$(base_dir "$2"); shift ;;
		--sched-params) SCHED_PARAMS=$2; shift ;;
		--extra) EXTRA+=("$2"); shift ;;
		--extra-file)
			[ -f "$2" ] || die "$2 not found"
			mapfile -t -O "${#EXTRA[@]}" EXTRA <"$2"; shift ;;
		--ctld-env) [[ $2 == *=* ]] || die "--ctld-env wants K=V"; ctld_env+=("$2"); shift ;;
		--cred-expire)
			[[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge 5 ] || die "--cred-expire wants seconds, at least 5"
			CRED_EXPIRE=$2; shift ;;
		--owner-pid) owner=$2; shift ;;
		--max-life) life=$2; shift ;;
		--timeout) timeout=$2; shift ;;
		*) die "unknown option $1" ;;
		esac
		shift
	done
	[ -n "$spec_file" ] && read_spec_file "$spec_file"
	SPEC+=("${SPEC_EXTRA[@]}")
	local l
	for l in "${EXTRA[@]}"; do
		# An extra default partition replaces ours.
		[[ $l =~ ^[[:space:]]*[Pp]artition[Nn]ame=.*[[:space:]][Dd]efault=[Yy][Ee][Ss] ]] && HAVE_PARTITION=1
	done
	DEBIAN_PLUGIN_DIR=$(slurm_plugin_dir)

	if pid_alive "$(pid_of "$BASE/pids/slurmctld")"; then
		die "a cluster already runs in $BASE (cluster.sh stop $BASE first)"
	fi
	local t0 t_lock t_munge t_ctld t1 width
	width=$(( ${#n} < 3 ? 3 : ${#n} ))
	node_lines "$n" 0 "$width" "${SPEC[@]}" >/dev/null   # check the spec now
	t0=$(now_ms)
	# Anything that fails from here on takes the partial cluster down; a
	# signal too (bash runs no EXIT trap when a signal kills it).
	trap start_failed EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT

	# A start is always a fresh cluster: no state, logs or jobs of an
	# earlier one in the same BASE (restart-ctld is what keeps state).
	rm -rf "${BASE:?}"/{state,spool,run,log,pids,jobs} "$BASE/release"
	mkdir -p "$BASE"/{etc,state,spool,run,log,munge,jobs,pids} "$PLUGIN_DIR"
	chmod 755 "$BASE" "$BASE"/{etc,run,log}
	chmod 700 "$BASE/munge" "$BASE/state"
	chmod 1777 "$BASE/jobs"
	slurm_release >"$BASE/release"
	# From the first daemon on, someone must clean up should this script
	# and its caller die.
	start_watchdog "$owner" "$life"
	: >"$BASE/etc/ctld.env"
	for l in "${ctld_env[@]}"; do echo "$l" >>"$BASE/etc/ctld.env"; done
	# Test users submit from BASE/jobs and read slurm.conf: the path must be
	# open to them all the way down.
	if ! runuser -u nobody -- test -x "$BASE/jobs" -a -w "$BASE/jobs" 2>/dev/null; then
		die "$BASE/jobs is not reachable and writable for unprivileged users (a parent directory lacks o+x?)"
	fi

	# Ports: chosen and bound under one lock so two starts never pick the
	# same block. The daemons must not inherit the lock (fd 9).
	exec 9>"$LOCK_FILE"
	flock -w 120 9 || die "could not take $LOCK_FILE within 120 s"
	t_lock=$(now_ms)
	local portbase host
	portbase=$(choose_ports "$n")
	echo "$portbase" >"$BASE/ports"
	host=$(hostname -s)
	node_lines "$n" "$portbase" "$width" "${SPEC[@]}" >"$BASE/nodes"
	write_conf "$host" "$portbase"

	t_munge=$(now_ms)
	start_munged || die "munged did not start (see $BASE/log/munged.log)"
	t_ctld=$(now_ms)
	start_slurmctld -i || die "slurmctld did not start (see $BASE/log/slurmctld.log)"
	local name
	while read -r name _; do
		start_slurmd "$name" || die "slurmd -N $name did not start (see $BASE/log/slurmd-$name.log)"
	done <"$BASE/nodes"
	wait_for "$timeout" "$n nodes idle" nodes_idle "$n" \
		|| die "only $(idle_count) of $n nodes became idle within ${timeout}s"
	flock -u 9; exec 9>&-
	t1=$(now_ms)
	trap - EXIT TERM INT
	printf 'bring_up_ms=%d lock_wait_ms=%d munged_ms=%d ctld_to_idle_ms=%d nodes=%d\n' \
		$(( t1 - t0 )) $(( t_lock - t0 )) $(( t_ctld - t_munge )) $(( t1 - t_ctld )) "$n" >"$BASE/log/timing"
	log "up: Slurm $(base_release), $n nodes idle in $(fmt_ms $(( t1 - t0 ))) s ($(fmt_ms $(( t1 - t_ctld ))) s from slurmctld start); ports $portbase-$(( portbase + n ))"
	echo "export SLURM_CONF=$SLURM_CONF"
}

# -------------------------------------------------------------------- stop
# Bounded at every step: polite first (cancel jobs, scontrol shutdown), then
# signals, then a sweep of anything still carrying the cluster's markers.
stop_pid() {
	local pid=$1 what=$2
	pid_alive "$pid" || return 0
	wait_for 10 "$what ($pid) to exit" pid_gone "$pid" && return 0
	kill -TERM "$pid" 2>/dev/null || true
	wait_for 5 "$what ($pid) to exit after SIGTERM" pid_gone "$pid" && return 0
	kill -KILL "$pid" 2>/dev/null || true
}

no_active_jobs() { [ -z "$(timeout 5 squeue -h -t R,CG,S -o %A 2>/dev/null)" ]; }

cmd_stop() {
	[ $# -ge 1 ] || die "usage: cluster.sh stop BASE"
	[ -d "$1" ] || { log "nothing to stop: $1 does not exist"; return 0; }
	use_cluster "$(base_dir "$1")"
	local t0 ctld pid f jobs
	t0=$(now_ms)
	# The watchdog's own stop must not kill the watchdog.
	if [ -z "${MAUISCHED_SLURM_WATCHDOG:-}" ]; then
		pid=$(pid_of "$BASE/pids/watchdog"); rm -f "$BASE/pids/watchdog"
		if pid_alive "$pid"; then kill -TERM "$pid" 2>/dev/null || true; fi
	fi
	ctld=$(pid_of "$BASE/pids/slurmctld")
	if pid_alive "$ctld" && timeout 5 scontrol ping >/dev/null 2>&1; then
		# slurmd leaves running job steps behind on shutdown: end them first.
		jobs=$(timeout 5 squeue -h -o %A 2>/dev/null | tr '\n' ' ' || true)
		if [ -n "${jobs// /}" ]; then
			# shellcheck disable=SC2086
			timeout 10 scancel $jobs 2>/dev/null || true
			wait_for 15 "jobs to end" no_active_jobs || true
		fi
		# Stops slurmctld and, through it, every slurmd.
		timeout 10 scontrol shutdown >/dev/null 2>&1 || true
	fi
	stop_pid "$ctld" slurmctld
	for f in "$BASE"/pids/slurmd-*; do
		[ -f "$f" ] || continue
		stop_pid "$(pid_of "$f")" "${f##*/}"
	done
	# Last: slurmctld and slurmd need munge until they are gone.
	pid=$(pid_of "$BASE/pids/munged")
	if pid_alive "$pid"; then kill -TERM "$pid" 2>/dev/null || true; fi
	stop_pid "$pid" munged
	# Whatever still carries the markers (slurmstepd, job processes, a
	# daemon whose pid file was lost) goes now.
	local stray
	stray=$(marked_pids "$BASE" | tr '\n' ' ')
	if [ -n "${stray// /}" ]; then
		log "killing leftover processes: $stray"
		# shellcheck disable=SC2086
		kill -TERM $stray 2>/dev/null || true
		sleep 0.5
		stray=$(marked_pids "$BASE" | tr '\n' ' ')
		# shellcheck disable=SC2086
		[ -z "${stray// /}" ] || kill -KILL $stray 2>/dev/null || true
		sleep 0.2
	fi
	rm -f "$BASE"/pids/* "$BASE"/run/*.pid
	stray=$(marked_pids "$BASE" | tr '\n' ' ')
	local t1; t1=$(now_ms)
	echo "teardown_ms=$(( t1 - t0 ))" >>"$BASE/log/timing" 2>/dev/null || true
	if [ -n "${stray// /}" ]; then
		log "error: processes survive teardown: $stray"
		return 1
	fi
	log "down in $(fmt_ms $(( t1 - t0 ))) s"
}

# ---------------------------------------------------------- restart-ctld
# stop-ctld: slurmctld only, as a clean shutdown (SIGTERM: plugins' fini()
# runs, state is saved); the nodes and their jobs keep running.
stop_ctld() {
	local pid
	pid=$(pid_of "$BASE/pids/slurmctld")
	if pid_alive "$pid"; then
		kill -TERM "$pid"
		wait_for 30 "slurmctld to exit" pid_gone "$pid" || {
			kill -KILL "$pid" 2>/dev/null || true
			wait_for 5 "slurmctld to die" pid_gone "$pid"
		}
	fi
}

cmd_stop_ctld() {
	[ $# -ge 1 ] || die "usage: cluster.sh stop-ctld BASE"
	use_cluster "$(base_dir "$1")"
	[ -f "$SLURM_CONF" ] || die "no cluster in $BASE"
	stop_ctld
	log "slurmctld stopped"
}

cmd_start_ctld() {
	[ $# -ge 1 ] || die "usage: cluster.sh start-ctld BASE"
	use_cluster "$(base_dir "$1")"
	[ -f "$SLURM_CONF" ] || die "no cluster in $BASE"
	pid_alive "$(pid_of "$BASE/pids/slurmctld")" && die "slurmctld already runs in $BASE"
	# No -i: slurmctld recovers its state, jobs included.
	start_slurmctld || die "slurmctld did not come back (see $BASE/log/slurmctld.log)"
	wait_for 60 "the nodes to register again" nodes_registered \
		|| die "the nodes did not register with the new slurmctld"
	log "slurmctld started"
}

cmd_restart_ctld() {
	[ $# -ge 1 ] || die "usage: cluster.sh restart-ctld BASE"
	use_cluster "$(base_dir "$1")"
	[ -f "$SLURM_CONF" ] || die "no cluster in $BASE"
	local t0 t1 t2
	t0=$(now_ms)
	stop_ctld
	# No -i: the restarted slurmctld must recover its state, jobs included.
	start_slurmctld || die "slurmctld did not come back (see $BASE/log/slurmctld.log)"
	t1=$(now_ms)
	wait_for 60 "the nodes to register again" nodes_registered \
		|| die "the nodes did not register with the restarted slurmctld"
	t2=$(now_ms)
	echo "restart_ctld_ms=$(( t1 - t0 )) nodes_back_ms=$(( t2 - t1 ))" >>"$BASE/log/timing"
	log "slurmctld restarted in $(fmt_ms $(( t1 - t0 ))) s; nodes registered $(fmt_ms $(( t2 - t1 ))) s later"
}

# --------------------------------------------------------- reconfigure
# 22.05 rereads slurm.conf in the running slurmctld (sched_p_reconfig).
# 24.11 restarts: slurmctld execs itself anew in the same process (the
# plugins' fini and init run; its log starts again with "slurmctld
# version ... started"), and every slurmd re-execs itself under a new pid.
# The recorded slurmd pids are then replaced by those of the daemons' own
# pid files, so that status and stop keep working.
ctld_starts() { grep -c 'slurmctld version .* started on cluster' "$BASE/log/slurmctld.log" 2>/dev/null || true; }
ctld_restarted() {
	[ "$(ctld_starts)" -gt "$1" ] || {
		pid_alive "$(pid_of "$BASE/pids/slurmctld")" || return 3
		return 1
	}
	timeout 5 scontrol ping >/dev/null 2>&1
}
pidfile_alive() { pid_alive "$(pid_of "$1")"; }

cmd_reconfigure() {
	[ $# -ge 1 ] || die "usage: cluster.sh reconfigure BASE"
	use_cluster "$(base_dir "$1")"
	[ -f "$SLURM_CONF" ] || die "no cluster in $BASE"
	local t0 t1 starts out rc=0 name
	t0=$(now_ms)
	starts=$(ctld_starts)
	out=$(timeout 30 scontrol reconfigure 2>&1) || rc=$?
	if ! reconfigure_restarts; then
		[ "$rc" -eq 0 ] || die "scontrol reconfigure failed (rc $rc): $out"
		log "reconfigured (in place)"
		return 0
	fi
	# 24.11 may answer "Socket timed out" while it restarts, and restart
	# all the same: what counts is the new slurmctld.
	[ "$rc" -eq 0 ] || log "scontrol reconfigure said (rc $rc): $out; waiting for the restart anyway"
	wait_for 60 "slurmctld to restart" ctld_restarted "$starts" \
		|| die "slurmctld did not restart after scontrol reconfigure (rc $rc: $out)"
	wait_for 60 "the nodes to register again" nodes_registered \
		|| die "the nodes did not register after reconfigure"
	while read -r name _; do
		wait_for 30 "slurmd $name to run again" pidfile_alive "$BASE/run/slurmd-$name.pid" \
			|| die "slurmd $name did not come back after reconfigure"
		cp "$BASE/run/slurmd-$name.pid" "$BASE/pids/slurmd-$name"
	done <"$BASE/nodes"
	t1=$(now_ms)
	echo "reconfigure_ms=$(( t1 - t0 ))" >>"$BASE/log/timing"
	log "reconfigured: slurmctld restarted, nodes registered, in $(fmt_ms $(( t1 - t0 ))) s"
}

# ------------------------------------------------------------------ status
cmd_status() {
	[ $# -ge 1 ] || die "usage: cluster.sh status BASE"
	use_cluster "$(base_dir "$1")"
	local ok=0 pid name stray
	pid=$(pid_of "$BASE/pids/munged")
	if pid_alive "$pid"; then echo "munged    up   $pid"; else echo "munged    down"; ok=1; fi
	pid=$(pid_of "$BASE/pids/slurmctld")
	if pid_alive "$pid" && timeout 5 scontrol ping >/dev/null 2>&1; then
		echo "slurmctld up   $pid"
	else
		echo "slurmctld down"; ok=1
	fi
	if [ -f "$BASE/nodes" ]; then
		while read -r name _; do
			pid=$(pid_of "$BASE/pids/slurmd-$name")
			if pid_alive "$pid"; then echo "slurmd    up   $pid $name"; else echo "slurmd    down $name"; ok=1; fi
		done <"$BASE/nodes"
	else
		ok=1
	fi
	stray=$(marked_pids "$BASE" | wc -l)
	echo "processes $stray"
	return "$ok"
}

# -------------------------------------------------------------------- logs
cmd_logs() {
	[ $# -ge 1 ] || die "usage: cluster.sh logs BASE"
	use_cluster "$(base_dir "$1")"
	local f
	echo "===== cluster $BASE"
	cmd_status "$BASE" 2>&1 | grep -v '^slurmd    up' || true
	if timeout 5 scontrol ping >/dev/null 2>&1; then
		echo "===== sinfo"; timeout 5 sinfo -N -o '%N %T %c %m %f %w %E' 2>&1 || true
		echo "===== squeue"; timeout 5 squeue -a -o '%i %u %T %Q %r %N %S' 2>&1 || true
	fi
	for f in "$BASE/log/slurmctld.log" "$BASE/log/slurmctld.stderr" "$BASE/log/munged.log" \
		"$BASE/log/munged.stderr" "$BASE/log/slurmd.stderr" "$BASE/log/watchdog.log"; do
		[ -s "$f" ] || continue
		echo "===== tail ${f#"$BASE"/}"; tail -n 80 "$f"
	done
	for f in "$BASE"/log/slurmd-*.log; do
		[ -s "$f" ] || continue
		# Debian's slurmd loads every MPI plugin; PMIx is not installed.
		if grep -iE 'error|fatal' "$f" | grep -qvE 'pmix|MPI: Cannot create context'; then
			echo "===== errors ${f#"$BASE"/}"
			grep -iE 'error|fatal' "$f" | grep -vE 'pmix|MPI: Cannot create context' | tail -n 20
		fi
	done
}

cmd=${1:-}
[ $# -gt 0 ] && shift
SPEC_EXTRA=()
case "$cmd" in
preflight) preflight ;;
start) cmd_start "$@" ;;
stop) cmd_stop "$@" ;;
restart-ctld) cmd_restart_ctld "$@" ;;
stop-ctld) cmd_stop_ctld "$@" ;;
start-ctld) cmd_start_ctld "$@" ;;
reconfigure) cmd_reconfigure "$@" ;;
status) cmd_status "$@" ;;
logs) cmd_logs "$@" ;;
watchdog) [ -n "${MAUISCHED_SLURM_WATCHDOG:-}" ] || die "internal command"; cmd_watchdog "$@" ;;
*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
