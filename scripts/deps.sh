#!/usr/bin/env bash
# Installs the Debian packages a task needs, if missing (idempotent).
# usage: scripts/deps.sh demo|test
# Needs root (or sudo) only when something is actually missing.
set -euo pipefail
mode=${1:-test}

pkgs_demo=(gcc libc6-dev)
pkgs_test=("${pkgs_demo[@]}")

case "$mode" in
  demo) want=("${pkgs_demo[@]}") ;;
  test) want=("${pkgs_test[@]}") ;;
  *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
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
