# Sourced by scripts/slurm-src.sh and scripts/slurm24-root.sh (not run),
# which define say() and die(): the Debian mirror to fetch from, and
# bounded steps. It travels with them: in the RPM's source tarball (every tracked file,
# scripts/rpm.sh) and into the Debian 13 root (the repository is
# bind-mounted there at its own path).

# mirror: the Debian mirror to fetch from: $MAUISCHED_DEBIAN_MIRROR, else
# the host's, the first URI serving the main archive (not -security) in
# the apt sources, else deb.debian.org.
mirror() {
	if [ -n "${MAUISCHED_DEBIAN_MIRROR:-}" ]; then echo "$MAUISCHED_DEBIAN_MIRROR"; return; fi
	local m
	m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^[[:space:]]*deb[[:space:]]/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; break } }
		     /^URIs:/ { for (i = 2; i <= NF; i++) print $i }' |
		grep -E '^https?://[^ ]*/debian/?$' | head -n 1 || true)
	echo "${m:-http://deb.debian.org/debian}"
}

# step WHAT TIMEOUT CMD...: run CMD bounded; on failure name the step, the
# command and its exit status, with the tail of its output.
step() {
	local what=$1 limit=$2 t0 rc=0 out
	shift 2
	t0=$(date +%s)
	out=$(mktemp)
	timeout --kill-after=10 "$limit" "$@" >"$out" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 30 "$out" >&2
		rm -f "$out"
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			die "$what: timed out after ${limit}s: $*"
		fi
		die "$what failed (exit $rc): $*"
	fi
	rm -f "$out"
	say "$what: $(( $(date +%s) - t0 )) s"
}
