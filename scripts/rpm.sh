#!/usr/bin/env bash
# Builds the mauisched RPMs (mauisched, -devel, -slurm, -torque and the
# source RPM) from this working tree, in a private rpmbuild tree:
#
#   scripts/rpm.sh              # -> target/rpm/RPMS/<arch>/*.rpm, target/rpm/SRPMS/
#   scripts/rpm.sh --tarball    # only the source tarball and the spec
#
# The source tarball (target/rpm/SOURCES/mauisched-<version>.tar.gz) is the
# tracked and untracked-but-not-ignored files of the working tree, the
# vendored crates (vendor/, `cargo vendor`) with the .cargo/config.toml
# that makes cargo use them, and the spec generated from
# packaging/mauisched.spec.in with the versions from Cargo.toml. rpmbuild
# needs no network.
#
# On an RPM distribution, `rpmbuild -ta` the tarball (or rebuild the source
# RPM in mock) with its BuildRequires installed. On Debian (CI), they are
# Debian packages, not in the rpm database: rpmbuild runs with --nodeps
# here. The Slurm version of `Requires: slurm = ...` is read from the
# installed headers (libslurm-dev) either way.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tarball_only=false
[ "${1:-}" = "--tarball" ] && tarball_only=true

version=$(scripts/version.sh version)
abi_major=$(scripts/version.sh abi-major)
abi_minor=$(scripts/version.sh abi-minor)
top=$root/target/rpm
name=mauisched-$version
mkdir -p "$top"/{SOURCES,SPECS,BUILD,RPMS,SRPMS,stage}

# The vendored crates, made again only when Cargo.lock changed.
vendor=$top/vendor
lock_sum=$(sha256sum Cargo.lock | cut -d' ' -f1)
if [ "$(cat "$vendor/.lock-sha256" 2>/dev/null)" != "$lock_sum" ]; then
  echo "rpm: cargo vendor"
  rm -rf "$vendor"
  mkdir -p "$vendor"
  cargo vendor --locked --versioned-dirs -q "$vendor/vendor" >/dev/null
  echo "$lock_sum" > "$vendor/.lock-sha256"
fi

# The spec, from the template and Cargo.toml's versions. The changelog
# date is the last commit's, so the same tree gives the same spec.
date=$(LC_ALL=C git log -1 --format=%cd --date=format:'%a %b %d %Y' 2>/dev/null || LC_ALL=C date +'%a %b %d %Y')
spec=$top/SPECS/mauisched.spec
sed -e "s/@VERSION@/$version/g" -e "s/@ABI_MAJOR@/$abi_major/g" \
    -e "s/@ABI_MINOR@/$abi_minor/g" -e "s/@DATE@/$date/g" \
    packaging/mauisched.spec.in > "$spec"

# The source tree: git's view of the working tree (deleted files left out).
stage=$top/stage/$name
rm -rf "$top/stage"
mkdir -p "$stage/.cargo"
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -xf - -C "$stage"
ln -s "$vendor/vendor" "$stage/vendor"
# crates.io replaced by vendor/ (a path relative to the tarball's top).
cat > "$stage/.cargo/config.toml" <<'EOF'
[source.crates-io]
replace-with = "vendored-sources"

[source.vendored-sources]
directory = "vendor"
EOF
cp "$spec" "$stage/mauisched.spec"
# Directories get the working tree's mtimes (files keep theirs): cargo
# watches src/ffi (build.rs) by mtime, and the RPM build is then
# incremental in target/rpm/cargo-target (see below).
(cd "$stage" && find . -type d -not -path './vendor*' -not -path './.cargo*') |
  while IFS= read -r d; do [ -d "$root/$d" ] && touch -r "$root/$d" "$stage/$d"; done
tarball=$top/SOURCES/$name.tar.gz
# gzip -1: the tarball is mostly vendored sources; speed over size.
tar -C "$top/stage" --dereference --owner=0 --group=0 --sort=name -cf - "$name" | gzip -1 > "$tarball"
cp packaging/slurm-version.sh "$top/SOURCES/"
# Slurm's source tarball of the installed release (the spec's Source2:
# sched_maui.so is built against slurmctld's configured source), from
# Debian's source packages (scripts/slurm-src.sh, cached under target/).
slurm_tarball=""
if [ -f "${SLURM_INCLUDE:-/usr/include}/slurm/slurm_version.h" ]; then
  slurm_tarball=$(scripts/slurm-src.sh --tarball)
  cp -f "$slurm_tarball" "$top/SOURCES/"
fi
echo "rpm: $tarball ($(du -h "$tarball" | cut -f1))"
$tarball_only && exit 0

# --nodeps: on Debian the BuildRequires (cargo, gcc, slurm-devel = libslurm-dev)
# are dpkg packages, unknown to rpm's database.
# debug_package: Debian's rpm has no find-debuginfo; RPM distributions
# build the -debuginfo package as usual.
# Payloads gzip level 1: the build is checked, then thrown away.
rm -rf "$top/RPMS" "$top/SRPMS" "$top/BUILD"
# cargo's output outside the build tree, so that building the RPMs again
# (same BUILD path, files with their mtimes) is incremental.
# MAUISCHED_RPM_CLEAN=1: from scratch, inside the build tree.
if [ "${MAUISCHED_RPM_CLEAN:-}" = 1 ]; then
  unset CARGO_TARGET_DIR
else
  export CARGO_TARGET_DIR=$top/cargo-target
fi
start=$(date +%s)
rpmbuild -ba --nodeps \
  --define "_topdir $top" \
  ${slurm_tarball:+--define "slurm_tarball $(basename "$slurm_tarball")"} \
  --define "debug_package %{nil}" \
  --define "_source_payload w1.gzdio" \
  --define "_binary_payload w1.gzdio" \
  "$spec"
echo "rpm: rpmbuild took $(($(date +%s) - start)) s"
find "$top/RPMS" "$top/SRPMS" -name '*.rpm' | sort
