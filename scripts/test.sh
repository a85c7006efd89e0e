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
echo "== cargo test"
cargo test --locked --all-targets
