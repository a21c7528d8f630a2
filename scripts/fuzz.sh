#!/usr/bin/env bash
# Fuzzes the Matrix Market reader and the option parsers for SECONDS (default 600) under an
# address-space cap of FUZZ_MEMORY_MB (default 4096): mutated headers and bodies through every
# reader, mutated command lines through the CLI's parser and the library's spec parsers. Prints
# the number of inputs run and of crashes; exits non-zero on any crash, abort or hang. The inputs
# that crashed are saved under target/fuzz-crashes/.
#   bash scripts/fuzz.sh 600
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
FUZZ_SECONDS="$seconds" FUZZ_SEED="${FUZZ_SEED:-$RANDOM}" \
  cargo test --release --locked --test fuzz
