#!/usr/bin/env python3
"""Time to order and scipy's SpMV after the order, side by side, for a scipy user:

- ``spmv_reorder.reorder(A)`` from Python;
- the command-line round trip a scipy user makes without the package: ``scipy.io.mmwrite`` the
  matrix, run ``spmv-reorder IN --perm-out P --quiet``, read ``P`` with ``np.loadtxt`` and subtract 1;
- ``scipy.sparse.csgraph.reverse_cuthill_mckee`` (``symmetric_mode`` when the pattern is
  symmetric);

then ``B @ x`` with scipy (one thread) for ``B = A[p][:, p]`` under the input order, the
spmv-reorder order and RCM's. Repetitions of the contenders alternate, so that a busy machine
slows them alike; the table gives medians and ratios.

Usage (with the package installed, e.g. in target/python-venv by scripts/python-test.sh):

    python scripts/python_vs_rcm.py --cli target/release/spmv-reorder [--reps 7] [--shuffle SEED]
        MATRIX.mtx[.gz] ...
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from cli_common import positive_int, require_executable, require_files, run_child


def cli_round_trip(cli, a, workdir):
    """The permutation by way of files and the command line, as a scipy user gets it today."""
    path = os.path.join(workdir, "a.mtx")
    perm_path = os.path.join(workdir, "perm.txt")
    scipy.io.mmwrite(path, a)
    run_child([cli, path, "--perm-out", perm_path, "--quiet"], "spmv-reorder", path)
    return np.loadtxt(perm_path, comments="%", dtype=np.int64) - 1


def rcm(a, symmetric):
    return reverse_cuthill_mckee(a, symmetric_mode=symmetric)


def alternate(contenders, reps):
    """Runs each contender once per round, rotating the order; returns each contender's results
    and seconds, one per round."""
    names = list(contenders)
    seconds = {n: [] for n in names}
    results = {n: [] for n in names}
    for r in range(reps):
        for n in names[r % len(names):] + names[:r % len(names)]:
            t = time.perf_counter()
            results[n].append(contenders[n]())
            seconds[n].append(time.perf_counter() - t)
    return results, seconds


def spmv_seconds(matrices, x_of, reps, min_seconds=0.05):
    """Median seconds of one ``B @ x`` per matrix, each sample looping for ``min_seconds``."""
    loops = {}
    for n, b in matrices.items():
        x = x_of[n]
        k, t = 1, 0.0
        while t < min_seconds:
            k *= 2
            start = time.perf_counter()
            for _ in range(k):
                b @ x
            t = time.perf_counter() - start
        loops[n] = k

    def sample(n):
        b, x, k = matrices[n], x_of[n], loops[n]
        start = time.perf_counter()
        for _ in range(k):
            b @ x
        return (time.perf_counter() - start) / k

    per_product, _ = alternate({n: (lambda n=n: sample(n)) for n in matrices}, reps)
    return {n: statistics.median(s) for n, s in per_product.items()}


def measure(spmv_reorder, path, cli, reps, shuffle):
    try:
        a = spmv_reorder.mmread(path)
    except (OSError, ValueError) as e:
        sys.exit(f"python_vs_rcm.py: {path}: cannot read it: {e}")
    if shuffle is not None:
        q = np.random.default_rng(shuffle).permutation(a.shape[0])
        a = a[q][:, q]
        a.sort_indices()
    pattern = a.copy()
    pattern.data[:] = 1
    symmetric = (pattern != pattern.T).nnz == 0
    with tempfile.TemporaryDirectory() as workdir:
        perms, order_s = alternate({
            "reorder": lambda: spmv_reorder.reorder(a),
            "cli": lambda: cli_round_trip(cli, a, workdir),
            "rcm": lambda: rcm(a, symmetric),
        }, reps)
    perms = {n: runs[-1] for n, runs in perms.items()}
    if not np.array_equal(perms["reorder"], perms["cli"]):
        print(f"note: {path}: the command line's permutation differs from reorder(A)")
    rng = np.random.default_rng(0)
    x = rng.standard_normal(a.shape[1])
    matrices = {"input": a}
    x_of = {"input": x}
    for n in ("reorder", "rcm"):
        p = perms[n]
        b = a[p][:, p]
        b.sort_indices()
        matrices[n] = b
        x_of[n] = x[p]
        np.testing.assert_allclose(b @ x[p], (a @ x)[p], rtol=1e-10, atol=1e-10)
    spmv = spmv_seconds(matrices, x_of, reps)
    return a, {n: statistics.median(s) for n, s in order_s.items()}, spmv


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("matrices", nargs="+", metavar="MATRIX", help="Matrix Market files (.mtx, .mtx.gz)")
    ap.add_argument("--cli", required=True, help="the spmv-reorder binary")
    ap.add_argument("--reps", type=positive_int, default=7,
                    help="alternating rounds of each contender; medians over them (default 7)")
    ap.add_argument("--shuffle", type=int, default=None, metavar="SEED",
                    help="shuffle rows and columns symmetrically with this seed first")
    args = ap.parse_args()
    require_files(ap, args.matrices)
    require_executable(ap, "--cli", args.cli)
    if args.shuffle is not None and args.shuffle < 0:
        ap.error(f"--shuffle {args.shuffle}: a seed is at least 0")
    try:
        import spmv_reorder
    except ImportError as e:
        sys.exit(f"python_vs_rcm.py needs the spmv_reorder package (pip install ./python): {e}")
    print("| matrix | rows | nnz | reorder(A) s | CLI round trip s | RCM s | "
          "SpMV input us | SpMV spmv-reorder us | SpMV RCM us | spmv-reorder / RCM speed |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for path in args.matrices:
        a, order_s, spmv = measure(spmv_reorder, path, args.cli, args.reps, args.shuffle)
        name = os.path.basename(path).split(".")[0]
        print(f"| {name} | {a.shape[0]:,} | {a.nnz:,} | {order_s['reorder']:.3f} | "
              f"{order_s['cli']:.3f} | {order_s['rcm']:.3f} | {spmv['input'] * 1e6:.0f} | "
              f"{spmv['reorder'] * 1e6:.0f} | {spmv['rcm'] * 1e6:.0f} | "
              f"{spmv['rcm'] / spmv['reorder']:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
