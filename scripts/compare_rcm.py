#!/usr/bin/env python3
"""Compare our reverse Cuthill-McKee with scipy's and sprs's on Matrix Market files.

For each matrix, runs `cargo run --release -p spmv-reorder-peers --example order -- METHOD FILE --perm`
for METHOD in `rcm` (ours, pseudo-peripheral start), `rcm-min-degree` (ours, scipy's start) and
`sprs-rcm` (sprs 0.11 `reverse_cuthill_mckee`), and `scipy.sparse.csgraph.reverse_cuthill_mckee` on
the pattern of A + A^T. Every permutation is measured here, by one set of definitions, on the
symmetric permutation P A P^T:

  bandwidth  max |i - j| over the entries of P (A + A^T) P^T
  profile    sum over rows r of (r - first column of row r in the lower triangle, diagonal included)
  D          SPEC section 2: sum over consecutive rows of |C_i xor C_{i+1}| of P A P^T

and the values the Rust example printed are checked against these (a mismatch aborts). Times are the
best of --repeat runs of the ordering alone: ours includes building the graph of A + A^T; sprs and
scipy get A + A^T ready-made (sprs's own A + A^T time is printed separately as "sprs+sym").
"ours" starts each component at a pseudo-peripheral node; `spmv-reorder --method rcm` starts at
the node of least degree (docs/cli.md), which is the "ours-md" column. Non-square matrices are
skipped; an error when none is left.

Usage: python3 scripts/compare_rcm.py [--repeat R] [FILE ...]   (default: matrices/*.mtx.gz)
Needs numpy and scipy (e.g. python3 -m venv /tmp/v && /tmp/v/bin/pip install numpy scipy).
"""

import argparse
import glob
import gzip
import json
import math
import os
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from cli_common import positive_int, require_files, run_child

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUST_METHODS = ["rcm", "rcm-min-degree", "sprs-rcm"]


def read_pattern(path):
    """The 0/1 pattern of the matrix in `path` (gzip or plain), as CSR with sorted indices."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            a = scipy.io.mmread(f)
    except (OSError, ValueError, EOFError) as e:
        sys.exit(f"compare_rcm.py: {path}: cannot read it: {e}")
    a = sp.csr_matrix(a)
    a.data = np.ones_like(a.data, dtype=np.int8)
    a.eliminate_zeros()
    a = sp.csr_matrix((np.ones(a.nnz, dtype=np.int8), a.indices, a.indptr), shape=a.shape)
    a.sum_duplicates()
    a.sort_indices()
    return a


def measures(a, s, perm):
    """(bandwidth, profile, D) of the symmetric permutation `perm` (new_to_old) of pattern `a`."""
    n = a.shape[0]
    new = np.empty(n, dtype=np.int64)
    new[perm] = np.arange(n)
    c = s.tocoo()
    rows, cols = new[c.row], new[c.col]
    bandwidth = int(np.abs(rows - cols).max()) if c.nnz else 0
    first = np.arange(n)
    lower = cols <= rows
    np.minimum.at(first, rows[lower], cols[lower])
    profile = int((np.arange(n) - first).sum())
    b = a[perm]
    lengths = np.diff(b.indptr).astype(np.int64)
    shared = np.asarray(b[:-1].multiply(b[1:]).sum(axis=1)).ravel().astype(np.int64)
    d = int((lengths[:-1] + lengths[1:] - 2 * shared).sum()) if n > 1 else 0
    return bandwidth, profile, d


def run_rust(method, path, repeat):
    cmd = ["cargo", "run", "--release", "-q", "-p", "spmv-reorder-peers", "--example", "order", "--",
           method, path, "--perm", "--repeat", str(repeat)]
    out = run_child(cmd, f"the order example ({method})", path, cwd=ROOT, capture_output=True,
                    text=True).stdout
    return json.loads(out)


def best_time(f, repeat):
    best, result = math.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        result = f()
        best = min(best, time.perf_counter() - t)
    return best, result


def compare(path, repeat):
    a = read_pattern(path)
    if a.shape[0] != a.shape[1]:
        return None
    s = ((a + a.T) > 0).astype(np.int8).tocsr()
    row = {"matrix": os.path.basename(path).split(".")[0], "n": a.shape[0], "nnz": a.nnz}
    row["identity"] = measures(a, s, np.arange(a.shape[0]))
    t, perm = best_time(lambda: reverse_cuthill_mckee(s, symmetric_mode=True), repeat)
    row["scipy"], row["t_scipy"] = measures(a, s, np.asarray(perm)), t
    for method in RUST_METHODS:
        out = run_rust(method, path, repeat)
        got = measures(a, s, np.asarray(out["perm"], dtype=np.int64))
        printed = (out["bandwidth"], out["profile"], out["d"])
        if got != printed:
            sys.exit(f"{path} {method}: Rust printed {printed}, Python measures {got}")
        row[method], row["t_" + method] = got, out["seconds"]
        if "prep_seconds" in out:
            row["t_sprs_sym"] = out["prep_seconds"]
    return row


def print_table(rows):
    cols = ["identity", "scipy", "sprs-rcm", "rcm-min-degree", "rcm"]
    short = {"identity": "orig", "scipy": "scipy", "sprs-rcm": "sprs", "rcm-min-degree": "ours-md",
             "rcm": "ours"}
    for k, title in enumerate(["bandwidth", "profile", "D (SPEC 2)"]):
        print(f"\n## {title}\n")
        print("| matrix | n | nnz | " + " | ".join(short[c] for c in cols) + " | ours/scipy |")
        print("|---|---:|---:|" + "---:|" * (len(cols) + 1))
        for r in rows:
            vals = [r[c][k] for c in cols]
            ratio = r["rcm"][k] / r["scipy"][k] if r["scipy"][k] else 1.0
            print(f"| {r['matrix']} | {r['n']} | {r['nnz']} | " + " | ".join(str(v) for v in vals)
                  + f" | {ratio:.2f} |")
    print("\n## time (ms, best of runs)\n")
    print("| matrix | scipy | sprs | sprs+sym | ours-md | ours | ours/sprs | ours/(sprs+sym) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        sprs_sym = r["t_sprs-rcm"] + r["t_sprs_sym"]
        print(f"| {r['matrix']} | {1e3 * r['t_scipy']:.2f} | {1e3 * r['t_sprs-rcm']:.2f} | "
              f"{1e3 * sprs_sym:.2f} | {1e3 * r['t_rcm-min-degree']:.2f} | {1e3 * r['t_rcm']:.2f} | "
              f"{r['t_rcm'] / r['t_sprs-rcm']:.2f} | {r['t_rcm'] / sprs_sym:.2f} |")

    def geomean(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs))

    print("\n## summary (ours: RCM from a pseudo-peripheral node; the command line's default "
          "`--method rcm` starts at the least degree: ours-md)\n")
    for k, title in enumerate(["bandwidth", "profile", "D"]):
        for other in ["scipy", "sprs-rcm"]:
            wins = sum(r["rcm"][k] <= r[other][k] for r in rows)
            ratios = [max(r["rcm"][k], 1) / max(r[other][k], 1) for r in rows]
            print(f"- {title}: ours <= {other} on {wins}/{len(rows)} matrices; "
                  f"geometric mean ours/{other} = {geomean(ratios):.3f}")
    t_ratio = [r["t_rcm"] / r["t_sprs-rcm"] for r in rows]
    t_ratio_sym = [r["t_rcm"] / (r["t_sprs-rcm"] + r["t_sprs_sym"]) for r in rows]
    t_scipy = [r["t_rcm"] / r["t_scipy"] for r in rows]
    print(f"- time: geometric mean ours/sprs = {geomean(t_ratio):.2f} (sprs given A+A^T), "
          f"ours/(sprs + its A+A^T) = {geomean(t_ratio_sym):.2f}, ours/scipy = {geomean(t_scipy):.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="Matrix Market files, .mtx or .mtx.gz (default: matrices/*.mtx.gz)")
    parser.add_argument("--repeat", type=positive_int, default=5,
                        help="runs of each ordering; the best time is kept (default 5)")
    args = parser.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(ROOT, "matrices", "*.mtx.gz")))
    if not files:
        parser.error(f"no FILE given and no matrix in {os.path.join(ROOT, 'matrices')}")
    require_files(parser, files)
    run_child(["cargo", "build", "--release", "-q", "-p", "spmv-reorder-peers", "--example",
               "order"], "cargo build", "the order example", cwd=ROOT)
    rows = []
    for f in files:
        r = compare(os.path.abspath(f), args.repeat)
        if r is None:
            print(f"skipping {f}: not square", file=sys.stderr)
            continue
        print(f"{r['matrix']}: done", file=sys.stderr)
        rows.append(r)
    if not rows:
        sys.exit("compare_rcm.py: no square matrix among the inputs")
    print_table(rows)


if __name__ == "__main__":
    main()
