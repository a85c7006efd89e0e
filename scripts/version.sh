#!/bin/sh
# Prints one of the versions that Cargo.toml holds, the one place they live:
#   scripts/version.sh version     package version (0.1.0): RPM Version, .pc Version
#   scripts/version.sh abi-major   C ABI major: the SONAME libmauisched.so.<abi-major>
#   scripts/version.sh abi-minor   C ABI minor
# build.rs reads the same keys for the header's MAUISCHED_ABI_* macros.
set -eu
toml="$(dirname "$0")/../Cargo.toml"
case "${1:-}" in
  version)
    # The first `version =` at the start of a line is [package]'s.
    v=$(sed -n 's/^version *= *"\([^"]*\)".*/\1/p' "$toml" | head -n1) ;;
  abi-major|abi-minor)
    v=$(awk -v key="$1" '
      /^\[/ { in_sec = ($0 == "[package.metadata.mauisched]"); next }
      in_sec { split($0, kv, "="); k = kv[1]; gsub(/[ \t]/, "", k)
               if (k == key) { v = kv[2]; gsub(/[ \t"]/, "", v); print v; exit } }' "$toml") ;;
  *) echo "usage: $0 version|abi-major|abi-minor" >&2; exit 2 ;;
esac
[ -n "$v" ] || { echo "$0: $1 not found in $toml" >&2; exit 1; }
echo "$v"
