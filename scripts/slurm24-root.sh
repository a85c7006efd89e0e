#!/usr/bin/env bash
# A Debian 13 (trixie) root file system with Slurm 24.11, for running the
# Slurm end-to-end tests on a second Slurm release from a Debian 12 host
# (tests/slurm_e2e.rs, tests/slurm/README.md). Needs root and debootstrap
# (scripts/deps.sh test installs it).
#
# usage:
#   slurm24-root.sh make [ROOT]          make ROOT, or reuse it when its stamp
#                                        says it is complete and current;
#                                        prints ROOT
#   slurm24-root.sh run ROOT -- CMD...   run CMD inside ROOT, as root, in the
#                                        current directory; the repository is
#                                        bind-mounted at its own path
#   slurm24-root.sh umount ROOT          take down mounts a killed run left
#
# ROOT defaults to $MAUISCHED_SLURM24_ROOT, else target/slurm24-root in the
# repository (a fresh clone makes its own; `cargo clean` removes it). The
# mirror is the host's configured Debian mirror unless
# MAUISCHED_DEBIAN_MIRROR is set. Every step is bounded in time
# (MAUISCHED_SLURM24_TIMEOUT, default 900 s, per download step).
#
# `run` mounts only what the tests need: /proc, /dev, the repository (and
# CARGO_TARGET_DIR when it lies outside), and the host's port-choice lock of
# tests/slurm/cluster.sh, so clusters inside and outside never pick the same
# ports. /sys is not mounted: the harness writes CgroupPlugin=disabled for
# 24.11. On exit, whatever way it comes, every process still running inside
# ROOT is ended and every mount is taken down; a mount that will not go is
# an error.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
SUITE=trixie
# What the tests need inside: the daemons and client, the headers and a
# compiler for the plugins and submit_many.c, munge.
PACKAGES=(slurmctld slurmd slurm-client libslurm-dev munge gcc make libc6-dev)
# Bump when the way the root is made changes: a root with an older recipe
# is made again.
RECIPE_VERSION=1
RECIPE="v$RECIPE_VERSION suite=$SUITE variant=minbase packages=${PACKAGES[*]}"
STAMP_NAME=.mauisched-slurm24-root
LIMIT=${MAUISCHED_SLURM24_TIMEOUT:-900}
HOST_LOCK=${MAUISCHED_SLURM_LOCK:-/tmp/mauisched-slurm.lock}

say() { printf 'slurm24-root: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

default_root() { echo "${MAUISCHED_SLURM24_ROOT:-$REPO/target/slurm24-root}"; }

# canonical PATH (parent must exist): mount points are compared textually.
canonical() {
	local d
	mkdir -p "$(dirname "$1")"
	d=$(cd "$(dirname "$1")" && pwd -P) || die "cannot enter $(dirname "$1")"
	echo "$d/$(basename "$1")"
}

# mirror(): the Debian mirror (MAUISCHED_DEBIAN_MIRROR, else the host's);
# step WHAT TIMEOUT CMD...: CMD bounded, failures named.
# shellcheck source=scripts/debian-lib.sh
. "$REPO/scripts/debian-lib.sh"

# mounts_under DIR: mount points at or below DIR, deepest first.
mounts_under() {
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

# Never delete a tree with something mounted in it: rm -rf would go through
# a bind mount of /dev or of the repository.
safe_remove() {
	[ -e "$1" ] || return 0
	[ -z "$(mounts_under "$1")" ] || die "$1 has mounts ($(mounts_under "$1" | tr '\n' ' ')); not removing it (slurm24-root.sh umount $1)"
	rm -rf --one-file-system "$1"
}

is_current() {
	local root=$1 f
	[ -f "$root/$STAMP_NAME" ] || return 1
	grep -qxF "recipe=$RECIPE" "$root/$STAMP_NAME" || return 1
	for f in usr/sbin/slurmctld usr/sbin/slurmd usr/sbin/slurmstepd usr/include/slurm/slurm.h \
		usr/sbin/munged usr/bin/gcc usr/bin/make usr/bin/sbatch; do
		[ -e "$root/$f" ] || return 1
	done
}

# The root's Slurm release, e.g. 24.11.5.
root_release() { awk -F= '$1 == "slurm" { print $2 }' "$1/$STAMP_NAME"; }

cmd_make() {
	local root t0 m
	root=$(canonical "${1:-$(default_root)}")
	[ "$(id -u)" -eq 0 ] || die "making the root needs root (debootstrap, chroot)"
	take_lock "$root"
	if is_current "$root"; then
		say "reusing $root (Slurm $(root_release "$root"), made $(awk -F= '$1 == "made" { print $2 }' "$root/$STAMP_NAME"))"
		fetch_slurm_source "$root"
		echo "$root"
		return 0
	fi
	if [ -e "$root" ] && [ ! -f "$root/$STAMP_NAME" ] && [ -n "$(ls -A "$root" 2>/dev/null)" ]; then
		die "$root exists and is not a root this script made (no $STAMP_NAME): not replacing it; choose another path"
	fi
	command -v debootstrap >/dev/null || [ -x /usr/sbin/debootstrap ] ||
		die "debootstrap is not installed (scripts/deps.sh test, as root, installs it)"
	m=$(mirror)
	t0=$(date +%s)
	# Made beside the final path and moved there only when complete, so an
	# interrupted make never leaves a root that looks usable.
	NEW_ROOT="$root.new"
	local new=$NEW_ROOT
	mkdir -p "$(dirname "$root")"
	say "making a Debian 13 root with Slurm 24.11 in $root from $m (bounded: ${LIMIT}s per step)"
	trap 'for p in $(mounts_under "$NEW_ROOT"); do umount "$p" || umount -l "$p"; done' EXIT
	# A base system that an interrupted make completed is kept: only the
	# packages are installed again.
	if [ "$(cat "$new/.debootstrap-done" 2>/dev/null)" != "$SUITE $m" ]; then
		safe_remove "$new"
		step "debootstrap --variant=minbase $SUITE" "$LIMIT" \
			debootstrap --variant=minbase "$SUITE" "$new" "$m"
		echo "$SUITE $m" >"$new/.debootstrap-done"
	else
		say "reusing the base system in $new"
	fi
	# No service may start from a maintainer script inside the root.
	printf '#!/bin/sh\nexit 101\n' >"$new/usr/sbin/policy-rc.d"
	chmod 755 "$new/usr/sbin/policy-rc.d"
	# Maintainer scripts want /proc and /dev; the EXIT trap unmounts them
	# should a step fail.
	mount -t proc proc "$new/proc"
	mount --bind /dev "$new/dev"
	step "apt-get update (in the root)" "$LIMIT" \
		chroot "$new" env LC_ALL=C apt-get update -q
	step "apt-get install ${PACKAGES[*]} (in the root)" "$LIMIT" \
		chroot "$new" env LC_ALL=C DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
	chroot "$new" apt-get clean
	umount "$new/dev"
	umount "$new/proc"
	local v
	v=$(chroot "$new" /usr/sbin/slurmctld -V | awk '{ print $2 }')
	case "$v" in
	24.11.*) ;;
	*) die "the root's slurmctld is '$v', not 24.11.x: Debian $SUITE moved on; update this script" ;;
	esac
	{
		echo "recipe=$RECIPE"
		echo "mirror=$m"
		echo "made=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "slurm=$v"
		# shellcheck disable=SC2016 # dpkg-query's own ${field} syntax
		chroot "$new" dpkg-query -W -f='package=${Package} ${Version}\n' "${PACKAGES[@]}"
	} >"$new/$STAMP_NAME"
	trap - EXIT
	rm -f "$new/.debootstrap-done"
	safe_remove "$root"
	mv "$new" "$root"
	say "made $root in $(( $(date +%s) - t0 )) s (Slurm $v, $(du -sm --one-file-system "$root" | cut -f1) MB)"
	fetch_slurm_source "$root"
	echo "$root"
}

# The upstream source tarball of the root's Slurm, fetched here, on the
# host, from Debian's $SUITE sources into the repository's target/slurm-src
# (bind-mounted inside): building sched/maui in the root configures it
# there (scripts/slurm-src.sh) without needing the network inside.
fetch_slurm_source() {
	local v
	v=$(root_release "$1")
	MAUISCHED_DEBIAN_SUITE=$SUITE MAUISCHED_DEBIAN_MIRROR=$(mirror) \
		"$REPO/scripts/slurm-src.sh" --tarball "$v" >/dev/null ||
		die "cannot fetch Slurm $v's source from Debian $SUITE (scripts/slurm-src.sh)"
}

# One user of a root at a time: two runs would share and unmount each
# other's mounts, and a make would replace a root in use.
take_lock() {
	exec 8>"$1.lock"
	flock -w 1800 8 || die "$1 is in use (lock $1.lock held for 30 min)"
}

# procs_in ROOT: processes whose root directory is ROOT (what run started).
procs_in() {
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		[ "$r" = "$1" ] && echo "${p#/proc/}"
	done
	return 0
}

cleanup_root() {
	local root=$1 pids p n=0 rc=0
	pids=$(procs_in "$root" | tr '\n' ' ')
	if [ -n "${pids// /}" ]; then
		say "ending processes left inside $root: $pids"
		# shellcheck disable=SC2086
		kill -TERM $pids 2>/dev/null || true
		while [ -n "$(procs_in "$root")" ] && [ "$n" -lt 50 ]; do sleep 0.1; n=$(( n + 1 )); done
		pids=$(procs_in "$root" | tr '\n' ' ')
		# shellcheck disable=SC2086
		[ -z "${pids// /}" ] || kill -KILL $pids 2>/dev/null || true
		sleep 0.2
	fi
	for p in $(mounts_under "$root"); do
		[ "$p" = "$root" ] && continue
		umount "$p" 2>/dev/null || { sleep 0.5; umount "$p"; } || {
			say "error: cannot unmount $p; detaching it (umount -l)"
			umount -l "$p" || true
			rc=1
		}
	done
	if mounts_under "$root" | grep -qvxF "$root"; then say "error: mounts left under $root"; rc=1; fi
	return "$rc"
}

# bind SRC ROOT: SRC at the same path inside ROOT.
bind() {
	local src=$1 root=$2
	if [ -d "$src" ]; then mkdir -p "$root$src"; else mkdir -p "$(dirname "$root$src")"; touch "$root$src"; fi
	mount --bind "$src" "$root$src"
}

cmd_run() {
	[ $# -ge 1 ] || die "usage: slurm24-root.sh run ROOT -- CMD..."
	local root cwd
	root=$(canonical "$1")
	shift
	[ "${1:-}" = "--" ] && shift
	[ $# -ge 1 ] || die "usage: slurm24-root.sh run ROOT -- CMD..."
	[ "$(id -u)" -eq 0 ] || die "entering the root needs root"
	is_current "$root" || die "$root is not a complete root (slurm24-root.sh make $root)"
	cwd=$(pwd -P)
	take_lock "$root"
	# A run killed before its trap ran may have left mounts: start clean.
	cleanup_root "$root" || die "could not clear $root of an earlier run's mounts"
	trap 'rc=$?; cleanup_root "'"$root"'" || rc=1; exit $rc' EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	bind "$REPO" "$root"
	if [ -n "${CARGO_TARGET_DIR:-}" ] && [ -d "$CARGO_TARGET_DIR" ]; then
		local t
		t=$(cd "$CARGO_TARGET_DIR" && pwd -P)
		case "$t/" in "$REPO"/*) ;; *) bind "$t" "$root" ;; esac
	fi
	touch "$HOST_LOCK"
	bind "$HOST_LOCK" "$root"
	# The harness names the host in slurm.conf (hostname -s); slurmd must
	# resolve it, and debootstrap writes no /etc/hosts.
	printf '127.0.0.1\tlocalhost %s %s\n' "$(hostname)" "$(hostname -s)" >"$root/etc/hosts"
	# Inside, the same directory when it is in the repository, else its top.
	case "$cwd/" in "$REPO"/*) ;; *) cwd=$REPO ;; esac
	local rc=0
	# shellcheck disable=SC2016 # expanded by the inner shell
	chroot "$root" /usr/bin/env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c 'cd "$1" && shift && exec "$@"' run "$cwd" "$@" || rc=$?
	return "$rc"
}

cmd_umount() {
	[ $# -eq 1 ] || die "usage: slurm24-root.sh umount ROOT"
	local root
	root=$(canonical "$1")
	take_lock "$root"
	cleanup_root "$root"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
make) cmd_make "$@" ;;
run) cmd_run "$@" ;;
umount) cmd_umount "$@" ;;
*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
