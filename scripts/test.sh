#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit, integration and property
# tests. Installs what the tests need first. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --locked --all-targets -- -D warnings
# The RPMs before the tests, so that a packaging failure shows here, on
# its own: tests/packaging.rs checks them and tests/slurm_e2e.rs runs the
# Slurm plugin and library from their payload. As root (CI) they must be
# built and used (MAUISCHED_REQUIRE_RPM=1); elsewhere when rpmbuild and
# the Slurm headers are installed.
if [ "$(id -u)" -eq 0 ]; then
  export MAUISCHED_REQUIRE_RPM=1
fi
if [ "$(id -u)" -eq 0 ] || { command -v rpmbuild && [ -f /usr/include/slurm/slurm.h ]; } >/dev/null; then
  echo "== RPMs (scripts/rpm.sh)"
  scripts/rpm.sh
  export MAUISCHED_RPM_TOPDIR=$PWD/target/rpm
fi
# The Debian 13 root with Slurm 24.11 in which tests/slurm_e2e.rs runs
# every scenario a second time: made here, once, so that a failure to
# make it shows on its own (as root it must be made; the test would also
# make it, and reuses this one).
if [ "$(id -u)" -eq 0 ]; then
  echo "== Debian 13 root with Slurm 24.11 (scripts/slurm24-root.sh)"
  MAUISCHED_SLURM24_ROOT=$(scripts/slurm24-root.sh make)
  export MAUISCHED_SLURM24_ROOT
fi
echo "== cargo test"
cargo test --locked --all-targets
