#!/usr/bin/env bash
# The project's one test command: installs what is missing, then checks formatting, lints, docs and
# runs every test of the workspace, then builds the Python package and runs its tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
cargo test --workspace --locked --release
# The ordering crate alone: no system library, no perf-event; and its sampler without live sampling.
bash scripts/check_core_deps.sh
cargo test --locked --release -p spmv-reorder-sampling --lib live_sampling
bash scripts/python-test.sh
