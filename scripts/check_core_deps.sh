#!/usr/bin/env bash
# The ordering crate (spmv-reorder-reorder) with its default features must build no system library
# and no perf-event: fails when its dependency tree (normal, build and dev dependencies) holds
# hwlocality (the hwloc C library) or perf-event (Linux perf_event_open). Those belong to the
# benchmark harness (spmv-reorder-spmv) and to live sampling (the `live-sampling` feature).
set -euo pipefail
cd "$(dirname "$0")/.."
crate=spmv-reorder-reorder
tree=$(cargo tree --locked -p "$crate" --prefix none)
if found=$(grep -E 'hwlocality|perf-event' <<<"$tree"); then
  echo "check_core_deps: $crate must not depend on hwlocality or perf-event; its tree holds:" >&2
  sort -u <<<"$found" >&2
  exit 1
fi
echo "check_core_deps: $crate: $(sort -u <<<"$tree" | wc -l) crates, none of hwlocality or perf-event"
