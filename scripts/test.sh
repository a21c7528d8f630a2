#!/usr/bin/env bash
# The project's one test command: installs what is missing, then checks formatting, lints, docs and
# runs every test of the workspace, the round trips of the binary formats against scipy, then
# builds the Python package and runs its tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo fmt --all -- --check
# No file over 600 lines of code, no function over 80 lines (exceptions listed in the script).
python3 scripts/check_sizes.py
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
cargo test --workspace --locked --release
# The ordering crate alone: no system library, no perf-event; and its sampler without live sampling.
bash scripts/check_core_deps.sh
cargo test --locked --release -p spmv-reorder-sampling --lib live_sampling
# The binary formats against scipy itself (docs/formats.md): a throwaway venv under target/ with
# numpy and scipy from PyPI, then conversions by the binary `cargo test` just built.
venv=target/scipy-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import scipy" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check numpy scipy
fi
"$venv/bin/python" scripts/scipy_roundtrip.py target/release/spmv-reorder
bash scripts/python-test.sh
