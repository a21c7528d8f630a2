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
import json
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


def lkh_path_cost(d, runs, time_limit):
    """LKH-3 through elkai on `d` plus a dummy node; `time_limit` (seconds, LKH's TIME_LIMIT) or None."""
    n = d.shape[0]
    full = np.zeros((n + 1, n + 1), dtype=np.int64)
    full[:n, :n] = d
    params = f"RUNS = {runs}\nPROBLEM_FILE = :stdin:\n"
    if time_limit:
        params += f"TIME_LIMIT = {time_limit}\n"
    problem = (f"TYPE : TSP\nDIMENSION : {n + 1}\nEDGE_WEIGHT_TYPE : EXPLICIT\n"
               "EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEDGE_WEIGHT_SECTION\n"
               + "\n".join(" ".join(map(str, row)) for row in full.tolist()) + "\n")
    tour = [i - 1 for i in elkai._elkai.solve_problem(params, problem)]
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
    ap.add_argument("--lkh-time", type=float, default=60.0,
                    help="LKH TIME_LIMIT in seconds for instances above 1000 nodes (0: none)")
    ap.add_argument("--no-uniform", action="store_true")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "tsp_quality_lkh.json"),
                    help="LKH results are cached here (keyed by matrix and runs)")
    ap.add_argument("rust", nargs="*", help="extra options for the Rust solver")
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tsp_quality_")
    names = [m for m in opts.matrices.split(",") if m]
    lkh = {}
    files = []
    cache = json.load(open(opts.cache)) if os.path.exists(opts.cache) else {}
    print(f"{'matrix':<12} {'n':>6} {'LKH-3':>9} {'ours':>9} {'ratio':>7} {'bound':>9} {'lkh_s':>7} {'ours_s':>7} {'our_cpu':>7}")
    for name in names:
        pattern = row_sets(name)
        n = pattern.shape[0]
        time_limit = opts.lkh_time if n > 1000 and opts.lkh_time > 0 else None
        key = f"{name}/runs={opts.runs}"
        if key not in cache and time_limit:
            key += f"/time_limit={time_limit}"
        if key not in cache:
            d = distance_matrix(pattern)
            t = time.time()
            cache[key] = (n, lkh_path_cost(d, opts.runs, time_limit), time.time() - t)
            with open(opts.cache, "w") as f:
                json.dump(cache, f)
        lkh[name] = tuple(cache[key])
        print(f"LKH-3 {key}: cost {lkh[name][1]}, {lkh[name][2]:.1f} s", flush=True)
        path = os.path.join(tmp, name + ".rows")
        write_rows(pattern, path)
        files.append(path)
    ratios = []
    cpu = 0.0
    for line in run_bench(["rows"] + files + opts.rust):
        f = fields(line)
        if "solve_cpu_s" in f:
            cpu = float(f["solve_cpu_s"])
            continue
        if "cost" not in f:
            continue
        name = line.split()[0]
        n, ref, lkh_s = lkh[name]
        ours = int(f["cost"])
        ratio = ours / ref if ref else 1.0
        ratios.append(ratio)
        print(f"{name:<12} {n:>6} {ref:>9} {ours:>9} {ratio:>7.4f} {f['bound']:>9} {lkh_s:>7.2f} {float(f['total_s']):>7.2f} {cpu:>7.2f}")
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
