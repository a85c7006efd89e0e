#!/usr/bin/env bash
# The configured Slurm source tree the sched/maui plugin is built against
# (it uses slurmctld's internal interface, as Slurm's own sched/backfill
# does: src/slurmctld/*.h, which include config.h). Fetches the upstream
# tarball of exactly the installed release from Debian's source packages
# (the .orig.tar.gz of slurm-wlm; Debian's packaging files are not needed
# and are not fetched), unpacks it under target/slurm-src/ and runs
# ./configure, only for config.h and slurm/slurm_version.h. Cached: a tree
# whose stamp names the release is reused at once.
#
# usage: slurm-src.sh [RELEASE]            prints the source root (SLURM_SRC=...)
#        slurm-src.sh --tarball [RELEASE]  only fetches the tarball; prints its path
#
# RELEASE defaults to the one in $SLURM_INCLUDE/slurm/slurm_version.h
# (SLURM_INCLUDE defaults to /usr/include), i.e. the headers the plugins
# are built against. Environment:
#   MAUISCHED_SLURM_SRC_DIR   where trees go (default <repo>/target/slurm-src)
#   MAUISCHED_SLURM_TARBALL   use this slurm-RELEASE tarball instead of
#                             downloading (e.g. a site's own slurm-X.tar.bz2)
#   MAUISCHED_DEBIAN_MIRROR   the Debian mirror (default: the host's)
#   MAUISCHED_DEBIAN_SUITE    the suite whose sources hold the release
#                             (default: this system's, /etc/os-release)
#   MAUISCHED_SLURM_SRC_TIMEOUT  bound of each step in s (default 600)
# Needs: apt (apt-get, apt-helper), tar, gcc, make. No root: apt runs with
# a private source list and state under the work directory; the host's apt
# configuration is not touched.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
DIR=${MAUISCHED_SLURM_SRC_DIR:-$REPO/target/slurm-src}
LIMIT=${MAUISCHED_SLURM_SRC_TIMEOUT:-600}
INC=${SLURM_INCLUDE:-/usr/include}
# Bump when what a prepared tree holds changes.
RECIPE=1

say() { printf 'slurm-src: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

tarball_only=false
if [ "${1:-}" = --tarball ]; then
	tarball_only=true
	shift
fi
release=${1:-}
if [ -z "$release" ]; then
	[ -f "$INC/slurm/slurm_version.h" ] ||
		die "$INC/slurm/slurm_version.h not found: install libslurm-dev or give the release"
	n=$(sed -n 's/^#define SLURM_VERSION_NUMBER[[:space:]]*0x\([0-9a-fA-F]*\).*/\1/p' "$INC/slurm/slurm_version.h")
	[ -n "$n" ] || die "no SLURM_VERSION_NUMBER in $INC/slurm/slurm_version.h"
	n=$((16#$n))
	release=$(printf '%02d.%02d.%d' $((n >> 16)) $(((n >> 8) & 255)) $((n & 255)))
fi
[[ $release =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "not a Slurm release: '$release'"

tree=$DIR/slurm-$release
stamp=$tree/.mauisched-slurm-src
if ! $tarball_only && [ -f "$stamp" ] && grep -qxF "recipe=$RECIPE release=$release" "$stamp"; then
	echo "$tree"
	exit 0
fi
mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock -w "$LIMIT" 9 || die "another slurm-src.sh holds $DIR/.lock"
if ! $tarball_only && [ -f "$stamp" ] && grep -qxF "recipe=$RECIPE release=$release" "$stamp"; then
	echo "$tree"
	exit 0
fi

# mirror(): the Debian mirror (MAUISCHED_DEBIAN_MIRROR, else the host's);
# step WHAT TIMEOUT CMD...: CMD bounded, failures named.
# shellcheck source=scripts/debian-lib.sh
. "$REPO/scripts/debian-lib.sh"

tarball=${MAUISCHED_SLURM_TARBALL:-}
if [ -z "$tarball" ]; then
	tarball=$(ls "$DIR/slurm-wlm_$release.orig.tar."* 2>/dev/null | grep -v '\.part$' | head -n 1 || true)
	if [ -z "$tarball" ]; then
		# shellcheck disable=SC1091
		codename=${MAUISCHED_DEBIAN_SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
		[ -n "$codename" ] || die "cannot tell the Debian release from /etc/os-release"
		m=$(mirror)
		apt=$DIR/apt
		rm -rf "$apt"
		mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
		sec=${m%/debian}
		sec=${sec%/}/debian-security
		{
			echo "deb-src $m $codename main"
			echo "deb-src $m $codename-updates main"
			echo "deb-src $sec $codename-security main"
		} >"$apt/sources.list"
		opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
			-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
			-o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
		# -security may not answer for every suite: only the main suite
		# must (checked by the next step).
		timeout --kill-after=10 "$LIMIT" apt-get "${opts[@]}" -qq update >/dev/null 2>&1 || true
		uris=$(timeout "$LIMIT" apt-get "${opts[@]}" -qq source --print-uris slurm-wlm 2>/dev/null) ||
			die "apt-get source --print-uris slurm-wlm failed: no deb-src for $codename at $m?"
		# Any Debian revision of the release has the same upstream tarball.
		line=$(printf '%s\n' "$uris" | grep -E "slurm-wlm_${release//./\\.}\.orig\.tar\.(gz|xz|bz2)'" | head -n 1 || true)
		[ -n "$line" ] || die "no slurm-wlm_$release.orig tarball in $codename's sources (found: $(printf '%s\n' "$uris" | grep -o "slurm-wlm_[^' ]*orig[^' ]*" | tr '\n' ' '))"
		uri=$(printf '%s\n' "$line" | awk '{ gsub("\x27", "", $1); print $1 }')
		name=$(printf '%s\n' "$line" | awk '{ print $2 }')
		hash=$(printf '%s\n' "$line" | awk '{ print $4 }')
		tarball=$DIR/$name
		step "download $name" "$LIMIT" /usr/lib/apt/apt-helper download-file "$uri" "$tarball.part" ${hash:+"$hash"}
		mv "$tarball.part" "$tarball"
		rm -rf "$apt"
	fi
fi
[ -s "$tarball" ] || die "$tarball is missing or empty"
if $tarball_only; then
	echo "$tarball"
	exit 0
fi

rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
step "unpack $(basename "$tarball")" "$LIMIT" tar -xf "$tarball" -C "$tree.tmp" --strip-components=1
[ -f "$tree.tmp/src/slurmctld/slurmctld.h" ] || die "$tarball holds no src/slurmctld/slurmctld.h"
got=$(sed -n 's/^Version:[[:space:]]*//p' "$tree.tmp/META" | head -n 1)
micro=$(sed -n 's/^Micro:[[:space:]]*//p' "$tree.tmp/META" | head -n 1)
[ -z "$got" ] || [ "$got.$micro" = "$release" ] || [ "$got" = "$release" ] ||
	die "$tarball is Slurm $got.$micro, not $release"
# Only config.h and slurm/slurm_version.h are needed: the slow optional
# probes are switched off (none of them changes the structs the plugin
# reads: FACTS-22.05-24.11.md section 3).
step "configure" "$LIMIT" sh -c "cd '$tree.tmp' && ./configure -q --disable-dependency-tracking --without-hdf5 --without-rrdtool --without-ofed --without-lua --without-pmix --without-ucx --without-munge --disable-x11 >configure.out 2>&1"
[ -f "$tree.tmp/config.h" ] && [ -f "$tree.tmp/slurm/slurm_version.h" ] || die "configure made no config.h/slurm_version.h"
mv "$tree.tmp" "$tree"
echo "recipe=$RECIPE release=$release" >"$stamp"
say "Slurm $release source ready in $tree"
echo "$tree"
