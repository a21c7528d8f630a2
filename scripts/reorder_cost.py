#!/usr/bin/env python3
"""The default's reordering cost with every nonzero and with a 2% sample, in products of the input.

For each matrix given, runs `spmv-reorder FILE --perm-out P --report R` with full information and
with `--sampler random:0.02`, alternating (each first in every other round), REPS times each, and
reads the report's `reorder_seconds` (sampling, ordering, length runs and even row splits; not
reading, measuring or writing). Each round then times one product of the input with
`spmv-reorder bench FILE` (the best kernel's median at --threads); prints the median cost in
seconds and in products of the round's product, and whether the two permutations are the same.

Run from the repository root after `cargo build --release`:
    python3 scripts/reorder_cost.py [--reps 3] [--threads 2] FILE...
"""

import argparse
import filecmp
import json
import os
import statistics
import subprocess
import tempfile


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--threads", default="2")
    p.add_argument("--binary", default="target/release/spmv-reorder")
    a = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="reorder_cost")
    for f in a.files:
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
                subprocess.run([a.binary, f, "--perm-out", perm, "--report", report, "--quiet",
                                "--threads", a.threads, *extra], check=True)
                seconds[name].append(json.load(open(report))["reorder_seconds"])
            out = subprocess.run([a.binary, "bench", f, "--threads", a.threads, "--reps", "10",
                                  "--stream-mb", "0", "--json"], check=True,
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
