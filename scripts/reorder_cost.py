#!/usr/bin/env python3
"""The default's reordering cost with every nonzero and with a 2% sample, in products of the input.

For each matrix given, runs `spmv-reorder FILE --perm-out P --report R` with full information and
with `--sampler random:0.02`, alternating, REPS times each, and reads the report's
`reorder_seconds` (sampling, ordering and length runs; not reading, measuring or writing). Then
times one product of the input with `spmv-reorder bench FILE` (the best kernel's median at
--threads) and prints each cost as seconds and as products, and whether the two permutations are
the same.

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
        runs = {"full": [], "2%": []}
        for _ in range(a.reps):
            for name, extra in (("full", []), ("2%", ["--sampler", "random:0.02"])):
                perm, report = os.path.join(tmp, name + ".perm"), os.path.join(tmp, "r.json")
                subprocess.run([a.binary, f, "--perm-out", perm, "--report", report, "--quiet",
                                "--threads", a.threads, *extra], check=True)
                runs[name].append(json.load(open(report))["reorder_seconds"])
        same = filecmp.cmp(os.path.join(tmp, "full.perm"), os.path.join(tmp, "2%.perm"), shallow=False)
        out = subprocess.run([a.binary, "bench", f, "--threads", a.threads, "--reps", "10",
                              "--stream-mb", "0", "--json"], check=True, stdout=subprocess.PIPE,
                             text=True).stdout
        product = json.loads(out)["median_s"]
        full, sampled = statistics.median(runs["full"]), statistics.median(runs["2%"])
        print(f"{f}: full {full:.3f} s = {full / product:.0f} products, 2% {sampled:.3f} s = "
              f"{sampled / product:.0f} products (one product {product * 1e3:.2f} ms); "
              f"same permutation: {'yes' if same else 'no'}", flush=True)


if __name__ == "__main__":
    main()
