#!/usr/bin/env bash
# The Python package's tests: builds `pip install ./python` into a virtual environment under target/
# (maturin, numpy, scipy and pytest come from the package registry) and runs pytest on
# python/tests, then on scripts/tests (the helper scripts' command lines). Called by
# scripts/test.sh after the Rust tests, whose release build gives the command-line binary the
# tests compare with.
set -euo pipefail
cd "$(dirname "$0")/.."
# Without its `bench` feature the package's native module links no system library.
tree=$(cargo tree --locked -p spmv-reorder-python --no-default-features -e normal,build --prefix none)
if grep -E 'hwlocality|perf-event' <<<"$tree"; then
  echo "python-test: spmv-reorder-python without 'bench' must not depend on hwlocality or perf-event" >&2
  exit 1
fi
venv=target/python-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check --quiet)
"${pip[@]}" install numpy scipy pytest
# As a user installs it (pip fetches maturin for the build); the build uses the workspace's
# Cargo.lock (locked) and target directory.
"${pip[@]}" install --force-reinstall --no-deps ./python
export SPMV_REORDER_BIN="$PWD/target/release/spmv-reorder"
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
# The helper scripts' command lines: their error paths, each a cheap subprocess.
"$venv/bin/python" -m pytest -q -p no:cacheprovider scripts/tests
