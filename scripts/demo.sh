#!/usr/bin/env bash
# The main job: a trace-driven simulation on the embedded default
# configuration (3,000 jobs of the KTH SP2 log on a 100-node cluster).
# Plots and per-job results go to target/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh demo
cargo build --release --locked --quiet
exec ./target/release/mauictl simulate --demo --out target/demo "$@"
