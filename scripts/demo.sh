#!/usr/bin/env bash
# The main job on the embedded default configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh demo
cargo build --release --locked --quiet
exec ./target/release/mauictl showconfig "$@"
