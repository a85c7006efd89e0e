# Sourced by scripts/slurm-src.sh and scripts/slurm24-root.sh (not run).
# It travels with them: in the RPM's source tarball (every tracked file,
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
