#!/usr/bin/env bash
# Unprivileged Unix users for Slurm end-to-end tests (idempotent).
#
# usage: users.sh ensure [COUNT]   create mauitest1..mauitestCOUNT (default 2)
#                                  if missing, print their names
#        users.sh list [COUNT]     print the names only
#
# Each user has a group of its own (group-based policies can tell them
# apart), no home directory and no login shell: Slurm runs their batch
# scripts directly, in the job's working directory. Creation runs under a
# lock so that parallel test runs do not race useradd.
set -euo pipefail
HARNESS_NAME=users.sh
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PREFIX=mauitest

names() {
	local i
	for (( i = 1; i <= $1; i++ )); do echo "$PREFIX$i"; done
}

ensure() {
	local count=$1 u
	[ "$(id -u)" -eq 0 ] || { log "creating test users needs root"; exit "$EXIT_SKIP"; }
	exec 8>"${MAUISCHED_SLURM_LOCK:-/tmp/mauisched-slurm.lock}.users"
	flock -w 60 8 || die "could not take the users lock within 60 s"
	for u in $(names "$count"); do
		getent passwd "$u" >/dev/null && continue
		useradd --system --user-group --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin --comment "mauisched Slurm test user" "$u" \
			|| die "useradd $u failed"
		log "created user $u"
	done
	flock -u 8
	names "$count"
}

case "${1:-}" in
ensure) ensure "${2:-2}" ;;
list) names "${2:-2}" ;;
*) echo "usage: users.sh ensure|list [COUNT]" >&2; exit 2 ;;
esac
