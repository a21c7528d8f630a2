#!/usr/bin/env python3
"""Quality of the spmv-reorder-tsp solver against LKH-3 (pip package `elkai`) and known constants.

Row-distance instances: for each matrix, rows are nodes and d(i,j) = |Ci| + |Cj| - 2|Ci & Cj| (SPEC 2).
LKH-3 gets the full distance matrix plus a dummy node at cost 0 to every node (its tour, cut at the dummy,
is a Hamiltonian path). Our solver (benches/tsp.rs, mode `rows`) gets per row the K cheapest rows sharing
a column plus an exact cost oracle. Random uniform 2D instances (mode `uniform`) are compared with the
asymptotic optimal tour 0.7124*sqrt(n*A).

Usage (throwaway venv; tests never need Python):
    python3 -m venv /tmp/tspvenv && /tmp/tspvenv/bin/pip install elkai numpy scipy
    /tmp/tspvenv/bin/python scripts/tsp_quality.py [--matrices a,b,...] [--runs R] [--lkh-time S]
        [--no-uniform] [--cache FILE] [-- extra options for the Rust solver, e.g. --kicks 20000 --time 10]

LKH-3's results are cached in --cache, keyed by the SHA-256 of the instance (the rows file both
solvers get), LKH's runs and time limit: a matrix changed under the same name is solved anew.
"""
import argparse
import hashlib
import json
import os
import re
import sys
import tempfile
import time

from cli_common import positive_int, run_child, write_atomically

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MATRICES = (
    "bcsstk04,bcsstk05,bfw398b,west0381,mhd416a,gr_30_30,cage8,mcfe,plat1919,bcsstk13,"
    "west2021,add20,orani678,fidap_ex6"
)


def row_sets(name):
    import numpy as np
    import scipy.io
    import scipy.sparse as sp

    a = scipy.io.mmread(os.path.join(ROOT, "matrices", name + ".mtx.gz"))
    a = sp.csr_matrix(a)
    a.sum_duplicates()
    a.sort_indices()
    pattern = sp.csr_matrix((np.ones(a.nnz, dtype=np.int64), a.indices, a.indptr), shape=a.shape)
    return pattern


def distance_matrix(pattern):
    import numpy as np

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
    import elkai
    import numpy as np

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


def run_bench(args, on):
    cmd = ["cargo", "bench", "--quiet", "--bench", "tsp", "--"] + args
    out = run_child(cmd, "cargo bench --bench tsp", on, cwd=ROOT, capture_output=True,
                    text=True).stdout
    return out.splitlines()


def non_negative_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: a finite number, at least 0")
    return value


def content_hash(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load_cache(path):
    if not os.path.exists(path):
        return {}
    try:
        with open(path) as f:
            cache = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"tsp_quality.py: --cache {path}: unreadable ({e}); remove it or name another")
    if not isinstance(cache, dict):
        sys.exit(f"tsp_quality.py: --cache {path}: not a cache of this script; name another")
    return cache


def fields(line):
    return dict(re.findall(r"(\S+)=(\S+)", line))


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matrices", default=DEFAULT_MATRICES,
                    help="comma-separated names of matrices/NAME.mtx.gz (default: 14 of them)")
    ap.add_argument("--runs", type=positive_int, default=1, help="LKH runs (default 1)")
    ap.add_argument("--lkh-time", type=non_negative_float, default=60.0,
                    help="LKH TIME_LIMIT in seconds for instances above 1000 nodes (0: none)")
    ap.add_argument("--no-uniform", action="store_true",
                    help="skip the random uniform instances of 10,000 and 100,000 points")
    ap.add_argument("--cache",
                    default=os.path.join(tempfile.gettempdir(), f"tsp_quality_lkh-{os.getuid()}.json"),
                    help="LKH results are cached here (keyed by the instance's SHA-256, runs and "
                         "time limit)")
    ap.add_argument("rust", nargs="*", help="extra options for the Rust solver (after --)")
    opts = ap.parse_args()
    opts.names = [m for m in opts.matrices.split(",") if m]
    if not opts.names:
        ap.error("--matrices: no name given")
    for name in opts.names:
        if not os.path.isfile(os.path.join(ROOT, "matrices", name + ".mtx.gz")):
            ap.error(f"--matrices: no matrices/{name}.mtx.gz")
    if os.path.isdir(opts.cache):
        ap.error(f"--cache {opts.cache}: a folder, not a file")
    try:
        import elkai  # noqa: F401
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError as e:
        sys.exit(f"tsp_quality.py needs elkai, numpy and scipy (pip install elkai numpy scipy): {e}")
    return opts


def main():
    opts = parse_args()
    with tempfile.TemporaryDirectory(prefix="tsp_quality_") as tmp:
        lkh, files = solve_lkh(opts, tmp)
        compare(opts, lkh, files)


def solve_lkh(opts, tmp):
    """Writes each matrix's rows file under `tmp` and returns LKH's (n, cost, seconds) per name,
    from the cache when the same instance was solved with the same settings."""
    lkh, files = {}, []
    cache = load_cache(opts.cache)
    print(f"{'matrix':<12} {'n':>6} {'LKH-3':>9} {'ours':>9} {'ratio':>7} {'bound':>9} {'lkh_s':>7} {'ours_s':>7} {'our_cpu':>7}")
    for name in opts.names:
        pattern = row_sets(name)
        n = pattern.shape[0]
        path = os.path.join(tmp, name + ".rows")
        write_rows(pattern, path)
        files.append(path)
        time_limit = opts.lkh_time if n > 1000 and opts.lkh_time > 0 else None
        key = f"{name}/sha256={content_hash(path)}/runs={opts.runs}"
        if time_limit:
            key += f"/time_limit={time_limit}"
        if key not in cache:
            d = distance_matrix(pattern)
            t = time.time()
            cache[key] = (n, lkh_path_cost(d, opts.runs, time_limit), time.time() - t)
            write_atomically(opts.cache, lambda f: json.dump(cache, f))
        lkh[name] = tuple(cache[key])
        print(f"LKH-3 {name}: cost {lkh[name][1]}, {lkh[name][2]:.1f} s", flush=True)
    return lkh, files


def compare(opts, lkh, files):
    """Runs our solver on the rows files and prints each ratio to LKH's cost, then the uniform
    instances unless --no-uniform."""
    ratios = []
    cpu = 0.0
    for line in run_bench(["rows"] + files + opts.rust, ", ".join(opts.names)):
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
            for line in run_bench(["uniform", str(n)] + opts.rust, f"uniform {n}"):
                if "cost/(0.7124" in line:
                    print(line + "  (target <= 1.05)")
                else:
                    print(line)


if __name__ == "__main__":
    sys.exit(main())
