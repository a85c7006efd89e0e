#!/usr/bin/env bash
# Installs the Debian packages a task needs, if missing (idempotent).
# usage: scripts/deps.sh demo|test
# Needs root (or sudo) only when something is actually missing.
set -euo pipefail
mode=${1:-test}

pkgs_demo=(gcc libc6-dev)
# The C ABI tests (tests/c_abi.rs, tests/abi_layout.rs): the C programs
# are also built as C++ (g++), run under valgrind, and bindgen reads the
# header with libclang.
pkgs_test=("${pkgs_demo[@]}" g++ valgrind libclang-dev)
# Times follow the host's zone: the tests name zones (America/Chicago)
# from the system's time zone database.
pkgs_test+=(tzdata)
# The manual pages are read back with `man -l` (tests/commands.rs).
pkgs_test+=(man-db)
# `simulate --compare`'s report.html is loaded and screenshot in a real
# browser (tests/simulate_cli.rs): Debian's headless Chromium.
pkgs_test+=(chromium-headless-shell fonts-dejavu-core)
# The Slurm end-to-end tests (tests/slurm_e2e.rs, tests/slurm/): a real
# Slurm 22.05 cluster on this host and the plugins built against its
# headers. Never slurm-wlm-emulator: it switches /usr/sbin/slurm{ctld,d,stepd}
# to builds that cannot start on Debian 12.
pkgs_slurm=(slurmctld slurmd slurm-client slurm-wlm-basic-plugins libslurm-dev munge make)
# The RPMs (scripts/rpm.sh, tests/packaging.rs): Debian's rpmbuild, and
# rpm2cpio + cpio to unpack their payload for the tests. pkg-config checks
# the installed mauisched.pc. Like the Slurm packages: installed as root.
pkgs_slurm+=(rpm rpm2cpio cpio pkg-config)
# The same tests on Slurm 24.11: scripts/slurm24-root.sh makes a Debian 13
# root with debootstrap from the Debian mirror apt uses here.
pkgs_slurm+=(debootstrap)

case "$mode" in
  demo) want=("${pkgs_demo[@]}") ;;
  test) want=("${pkgs_test[@]}") ;;
  *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac

is_missing() {
  ! dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
for p in "${want[@]}"; do
  is_missing "$p" && missing+=("$p")
done
# The Slurm tests run daemons and create test users: they need root, and
# skip with a message without it. So their packages are installed only
# when running as root; elsewhere their absence is reported, not fatal.
if [ "$mode" = test ]; then
  slurm_missing=()
  for p in "${pkgs_slurm[@]}"; do
    is_missing "$p" && slurm_missing+=("$p")
  done
  if [ ${#slurm_missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
      missing+=("${slurm_missing[@]}")
    else
      echo "deps: not root: the Slurm end-to-end and RPM tests may be skipped (missing: ${slurm_missing[*]})" >&2
    fi
  fi
fi
if ! command -v cargo >/dev/null; then
  echo "deps: cargo not found: install the Rust toolchain (https://rustup.rs) first" >&2
  exit 1
fi
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
