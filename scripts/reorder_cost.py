#!/usr/bin/env python3
"""The default's reordering cost with every nonzero and with a 2% sample, in products of the input.

For each matrix given, runs `spmv-reorder FILE --perm-out P --report R` with full information and
with `--sampler random:0.02`, alternating (each first in every other round), REPS times each, and
reads the report's `reorder_seconds` (sampling, ordering, length runs and even row splits; not
reading, measuring or writing). Each round then times one product of the input with
`spmv-reorder bench FILE` (the best kernel's median at --threads); prints the median cost in
seconds and in products of the round's product, and whether the two permutations are the same.

After `cargo build --release`:
    python3 scripts/reorder_cost.py [--reps 3] [--threads 2] [--binary BINARY] FILE...
(--binary defaults to target/release/spmv-reorder of this repository, wherever it is run from.)
"""

import argparse
import filecmp
import json
import os
import statistics
import subprocess
import tempfile

from cli_common import positive_int, require_executable, require_files, run_child

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE", help="Matrix Market files (.mtx, .mtx.gz)")
    p.add_argument("--reps", type=positive_int, default=3,
                   help="rounds per matrix; medians over them (default 3)")
    p.add_argument("--threads", type=positive_int, default=2,
                   help="threads of the reordering and of the product (default 2)")
    p.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "spmv-reorder"),
                   help="the spmv-reorder binary (default: this repository's release build)")
    a = p.parse_args()
    require_files(p, a.files)
    require_executable(p, "--binary", a.binary)
    with tempfile.TemporaryDirectory(prefix="reorder_cost") as tmp:
        for f in a.files:
            measure(a, f, tmp)


def measure(a, f, tmp):
    """Prints the median reordering cost of `f`, full and sampled, in seconds and products."""
    threads = str(a.threads)
    # Each round times one product of the input right after the two reorderings, so that a
    # round's ratios share the machine's state; the medians are over the rounds.
    cost = {"full": [], "2%": []}
    seconds = {"full": [], "2%": []}
    runs = (("full", []), ("2%", ["--sampler", "random:0.02"]))
    for rep in range(a.reps):
        # Each goes first in every other round: a run right after a product's process finds
        # the machine's memory in another state than one after a reordering.
        for name, extra in runs[::-1] if rep % 2 else runs:
            perm, report = os.path.join(tmp, name + ".perm"), os.path.join(tmp, "r.json")
            run_child([a.binary, f, "--perm-out", perm, "--report", report, "--quiet",
                       "--threads", threads, *extra], "spmv-reorder", f)
            with open(report) as r:
                seconds[name].append(json.load(r)["reorder_seconds"])
        out = run_child([a.binary, "bench", f, "--threads", threads, "--reps", "10",
                         "--stream-mb", "0", "--json"], "spmv-reorder bench", f,
                        stdout=subprocess.PIPE, text=True).stdout
        product = json.loads(out)["median_s"]
        for name in cost:
            cost[name].append(seconds[name][-1] / product)
    same = filecmp.cmp(os.path.join(tmp, "full.perm"), os.path.join(tmp, "2%.perm"),
                       shallow=False)
    m = {name: (statistics.median(seconds[name]), statistics.median(cost[name]))
         for name in cost}
    print(f"{f}: full {m['full'][0]:.3f} s = {m['full'][1]:.0f} products, 2% "
          f"{m['2%'][0]:.3f} s = {m['2%'][1]:.0f} products; same permutation: "
          f"{'yes' if same else 'no'}", flush=True)


if __name__ == "__main__":
    main()
