#!/usr/bin/env python3
"""Quality of the spmv-reorder-tsp solver against LKH-3 (pip package `elkai`) and known constants.

Row-distance instances: for each matrix, rows are nodes and d(i,j) = |Ci| + |Cj| - 2|Ci & Cj| (SPEC 2).
LKH-3 gets the full distance matrix plus a dummy node at cost 0 to every node (its tour, cut at the dummy,
is a Hamiltonian path). Our solver (benches/tsp.rs, mode `rows`) gets per row the K cheapest rows sharing
a column plus an exact cost oracle. Random uniform 2D instances (mode `uniform`) are compared with the
asymptotic optimal tour 0.7124*sqrt(n*A).

Usage (throwaway venv; tests never need Python):
    python3 -m venv /tmp/tspvenv && /tmp/tspvenv/bin/pip install elkai numpy scipy
    /tmp/tspvenv/bin/python scripts/tsp_quality.py [--matrices a,b,...] [--runs R] [--no-uniform]
        [-- extra options for the Rust solver, e.g. --kicks 20000 --time 10]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import elkai
import numpy as np
import scipy.io
import scipy.sparse as sp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MATRICES = (
    "bcsstk04,bcsstk05,bfw398b,west0381,mhd416a,gr_30_30,cage8,mcfe,plat1919,bcsstk13,"
    "west2021,add20,orani678,fidap_ex6"
)


def row_sets(name):
    a = scipy.io.mmread(os.path.join(ROOT, "matrices", name + ".mtx.gz"))
    a = sp.csr_matrix(a)
    a.sum_duplicates()
    a.sort_indices()
    pattern = sp.csr_matrix((np.ones(a.nnz, dtype=np.int64), a.indices, a.indptr), shape=a.shape)
    return pattern


def distance_matrix(pattern):
    sizes = np.diff(pattern.indptr).astype(np.int64)
    overlap = (pattern @ pattern.T).toarray().astype(np.int64)
    return sizes[:, None] + sizes[None, :] - 2 * overlap


def write_rows(pattern, path):
    with open(path, "w") as f:
        f.write(f"{pattern.shape[0]}\n")
        for i in range(pattern.shape[0]):
            cols = pattern.indices[pattern.indptr[i]:pattern.indptr[i + 1]]
            f.write(" ".join(map(str, cols)) + "\n")


def lkh_path_cost(d, runs):
    n = d.shape[0]
    full = np.zeros((n + 1, n + 1), dtype=np.int64)
    full[:n, :n] = d
    tour = elkai.DistanceMatrix(full.tolist()).solve_tsp(runs=runs)[:-1]
    k = tour.index(n)
    path = tour[k + 1:] + tour[:k]
    assert sorted(path) == list(range(n))
    return int(sum(d[path[i], path[i + 1]] for i in range(n - 1)))


def run_bench(args):
    cmd = ["cargo", "bench", "--quiet", "--bench", "tsp", "--"] + args
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return out.splitlines()


def fields(line):
    return dict(re.findall(r"(\S+)=(\S+)", line))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--matrices", default=DEFAULT_MATRICES)
    ap.add_argument("--runs", type=int, default=1, help="LKH runs")
    ap.add_argument("--no-uniform", action="store_true")
    ap.add_argument("rust", nargs="*", help="extra options for the Rust solver")
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tsp_quality_")
    names = [m for m in opts.matrices.split(",") if m]
    lkh = {}
    files = []
    print(f"{'matrix':<12} {'n':>6} {'LKH-3':>9} {'ours':>9} {'ratio':>7} {'bound':>9} {'lkh_s':>7} {'ours_s':>7}")
    for name in names:
        pattern = row_sets(name)
        d = distance_matrix(pattern)
        t = time.time()
        lkh[name] = (pattern.shape[0], lkh_path_cost(d, opts.runs), time.time() - t)
        path = os.path.join(tmp, name + ".rows")
        write_rows(pattern, path)
        files.append(path)
    ratios = []
    for line in run_bench(["rows"] + files + opts.rust):
        f = fields(line)
        name = line.split()[0]
        n, ref, lkh_s = lkh[name]
        ours = int(f["cost"])
        ratio = ours / ref if ref else 1.0
        ratios.append(ratio)
        print(f"{name:<12} {n:>6} {ref:>9} {ours:>9} {ratio:>7.4f} {f['bound']:>9} {lkh_s:>7.2f} {float(f['total_s']):>7.2f}")
    if ratios:
        print(f"row-distance: mean ratio ours/LKH = {sum(ratios) / len(ratios):.4f}, max = {max(ratios):.4f}"
              f" (targets: mean <= 1.01, each <= 1.03)")
    if not opts.no_uniform:
        for n in (10_000, 100_000):
            for line in run_bench(["uniform", str(n)] + opts.rust):
                if "cost/(0.7124" in line:
                    print(line + "  (target <= 1.05)")
                else:
                    print(line)


if __name__ == "__main__":
    sys.exit(main())
