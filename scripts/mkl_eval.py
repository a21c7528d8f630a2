#!/usr/bin/env python3
"""The default order against the peers a scipy user would pick, timed with Intel MKL's SpMV.

For each Matrix Market file (.mtx or .mtx.gz) of a folder (or the generated set, see --generate), this script computes
the orders an independent user would try:
  - scipy's reverse Cuthill-McKee (scipy.sparse.csgraph.reverse_cuthill_mckee on A + A^T);
  - METIS's k-way partition order (pymetis, parts of 256 rows, rows numbered part by part);
each as is and with the length runs of spmv-reorder's default (rows of each block of 128 positions
sorted by length, stably), so that locality itself is compared; then spmv-reorder's default order
(the binary's --perm-out), RCM with runs spread over the same even row splits as the default's
(so that the splits' gain at 2 threads is told apart from locality), and the floor: the best peer's order with each row's k nonzeros moved to
columns i..i+k-1 (same row lengths, x read in sequence). Every order is timed with MKL's
mkl_sparse_d_mv through sparse_dot_mkl, at 1 and 2 threads, in alternating rounds, and the script
prints per matrix the median times, the best peer, and the default's ratio to the target
max(0.91 x best peer, 1.05 x floor); then the geometric mean of default / target over the shuffled
matrices (at most 1: met) and, for the matrices as generated, the default's time over the input's.
A matrix counts as shuffled when its file name contains "shuffled". Times are in milliseconds per
product (the median of the rounds, each the mean of 5 products).

Usage:
  python3 scripts/mkl_eval.py --generate DIR [--bin target/release/spmv-reorder]  # write the set, evaluate
  python3 scripts/mkl_eval.py DIR [--only NAME] [--reps 7] [--threads 1,2] [--also LABEL=OPTIONS]
                               [--jumbled-floor 64,512] [--copies 2] [--bin BINARY]

--copies N times N copies of every matrix, each in memory of its own, and pools their samples:
where a copy's arrays land moves R-MAT's time by up to 11% at 1 thread.

--jumbled-floor B,... also times, in the floor's rounds, the floor with the columns of each aligned
block of B columns permuted at random: every row reads the same stretch of x, out of sequence.

The generated set: 3D Poisson 100^3, a random geometric graph of 1M points, a banded matrix of 1M rows
and 10M nonzeros, R-MAT scale 20; each as generated and shuffled (`gen ... --shuffle 1`).
Needs: pip install numpy scipy pymetis mkl sparse_dot_mkl fast_matrix_market (a throwaway venv; MKL_RT
is set to the venv's libmkl_rt when not set). Not run by the tests: it times, and it needs MKL.
"""

import argparse
import ctypes
import glob
import os
import statistics
import sys
import tempfile
import time

from cli_common import matrices_in, positive_int, positive_int_list, require_executable, run_child

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_BLOCK = 128
PART_ROWS = 256
# The peers of the target: scipy's RCM and METIS's partition order, each as is and with runs.
PEERS = ("rcm", "rcm runs", "gp", "gp runs")
# The orders every evaluation times: an --also label may not be one of them.
RESERVED_LABELS = ("input", *PEERS, "rcm runs split", "default", "floor")
GENERATED = [
    ("poisson3d-100", ["poisson3d", "--nx", "100"]),
    ("geometric-1M", ["geometric", "--n", "1000000"]),
    ("banded-1M", ["banded", "--n", "1000000", "--nnz", "10000000"]),
    ("rmat-20", ["rmat", "--scale", "20"]),
]


def mkl_library():
    """Points sparse_dot_mkl at the venv's MKL runtime and returns it (for the thread count)."""
    if "MKL_RT" not in os.environ:
        found = sorted(glob.glob(os.path.join(sys.prefix, "lib", "libmkl_rt.so*")))
        if found:
            os.environ["MKL_RT"] = found[0]
    try:
        import sparse_dot_mkl  # noqa: F401  (loads MKL)

        return ctypes.CDLL(os.environ["MKL_RT"])
    except (ImportError, KeyError, OSError) as e:
        sys.exit(f"mkl_eval.py needs sparse_dot_mkl and MKL's libmkl_rt (pip install mkl "
                 f"sparse_dot_mkl, or set MKL_RT): {e}")


def load(path):
    import fast_matrix_market as fmm
    import numpy as np
    import scipy.sparse as sp

    try:
        a = fmm.mmread(path)
    except (OSError, ValueError, RuntimeError) as e:
        sys.exit(f"mkl_eval.py: {path}: cannot read it: {e}")
    if a.shape[0] != a.shape[1]:
        sys.exit(f"mkl_eval.py: {path}: {a.shape[0]} x {a.shape[1]}, not square")
    a = sp.csr_matrix(a, dtype=np.float64)
    a.sum_duplicates()
    a.sort_indices()
    return sp.csr_matrix(
        (a.data, a.indices.astype(np.int32), a.indptr.astype(np.int32)), shape=a.shape
    )


def symmetric_pattern(a):
    import scipy.sparse as sp

    p = sp.csr_matrix((a.data * 0 + 1, a.indices, a.indptr), shape=a.shape)
    s = (p + p.T).tocsr()
    s.setdiag(0)
    s.eliminate_zeros()
    s.sort_indices()
    return s


def rcm(a, s):
    import numpy as np
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    return np.asarray(reverse_cuthill_mckee(s, symmetric_mode=True), dtype=np.int64)


def metis_partition_order(a, s):
    import numpy as np
    import pymetis

    parts = max(2, -(-a.shape[0] // PART_ROWS))
    if hasattr(pymetis, "CSRAdjacency"):
        graph = {"adjacency": pymetis.CSRAdjacency(s.indptr, s.indices)}
    else:  # an older pymetis takes the arrays themselves
        graph = {"xadj": s.indptr, "adjncy": s.indices}
    _, membership = pymetis.part_graph(parts, **graph)
    return np.argsort(np.asarray(membership), kind="stable").astype(np.int64)


def with_runs(a, order):
    """`order` with the rows of each block of RUN_BLOCK positions sorted by length, stably."""
    import numpy as np

    lengths = np.diff(a.indptr)[order]
    block = np.arange(len(order)) // RUN_BLOCK
    return order[np.lexsort((np.arange(len(order)), lengths, block))]


def spread_over_row_splits(a, order, threads=16, block=RUN_BLOCK, tolerance=1.05):
    """`order` as spmv-reorder's default spreads it for kernels splitting rows evenly between 2 to
    `threads` threads (crates/reorder/src/row_split.rs): unchanged when no thread count gets more
    than `tolerance` times its share of nonzeros; else cut into pieces of at most 1/(16·threads) of
    the nonzeros and of the rows, at multiples of `block` (between rows in a block holding that
    share alone), and the dense and light pieces laid down in their order so that the nonzeros
    follow the rows."""
    import numpy as np

    n = len(order)
    prefix = np.concatenate([[0], np.cumsum(np.diff(a.indptr)[order])])
    total = int(prefix[-1])

    def imbalance(o_prefix):
        worst = 1.0
        for t in range(2, threads + 1):
            cuts = (np.arange(t + 1) * n) // t
            worst = max(worst, np.diff(o_prefix[cuts]).max() * t / max(total, 1))
        return worst

    if total == 0 or imbalance(prefix) <= tolerance:
        return order
    pieces_max = 16 * threads
    rows_max = max(n // pieces_max, block)
    def full(s, e):
        return (int(prefix[e]) - int(prefix[s])) * pieces_max >= total

    pieces, start = [], 0
    while start < n:
        block_end = min(start + block, n)
        if full(start, block_end):  # a block holding a piece's share alone: cut between rows
            s = start
            while s < block_end:
                e = s + 1
                while e < block_end and not full(s, e):
                    e += 1
                pieces.append((s, e))
                s = e
            start = block_end
            continue
        end = block_end
        while end < n and end - start < rows_max and not full(start, end):
            nxt = min(end + block, n)
            if full(end, nxt):
                break
            end = nxt
        pieces.append((start, end))
        start = end
    dense = [p for p in pieces if (prefix[p[1]] - prefix[p[0]]) * n > total * (p[1] - p[0])]
    light = [p for p in pieces if (prefix[p[1]] - prefix[p[0]]) * n <= total * (p[1] - p[0])]
    out, placed_nnz, placed_rows, d, li = [], 0, 0, 0, 0
    while d < len(dense) or li < len(light):
        behind = placed_nnz * n <= total * placed_rows
        if d < len(dense) and (behind or li == len(light)):
            s, e = dense[d]
            d += 1
        else:
            s, e = light[li]
            li += 1
        out.append(order[s:e])
        placed_nnz += int(prefix[e] - prefix[s])
        placed_rows += e - s
    return np.concatenate(out)


def permute(a, order):
    b = a[order][:, order].tocsr()
    b.sort_indices()
    return b


def floor_twin(b):
    import numpy as np
    import scipy.sparse as sp

    n = b.shape[0]
    lengths = np.diff(b.indptr)
    first = np.clip(np.minimum(np.arange(n), b.shape[1] - lengths), 0, None)
    within = np.arange(b.nnz) - np.repeat(b.indptr[:-1], lengths)
    cols = (np.repeat(first, lengths) + within).astype(np.int32)
    return sp.csr_matrix((b.data, cols, b.indptr), shape=b.shape)


def jumbled(b, block, seed=1):
    """`b` with the columns of each aligned block of `block` columns permuted at random."""
    import numpy as np
    import scipy.sparse as sp

    n = b.shape[1]
    rng = np.random.default_rng(seed)
    keys = np.arange(n) // block + rng.random(n)  # a random order within each block
    new = np.empty(n, dtype=np.int32)
    new[np.argsort(keys, kind="stable")] = np.arange(n, dtype=np.int32)
    m = sp.csr_matrix((b.data, new[b.indices], b.indptr), shape=b.shape)
    m.sort_indices()
    return m


def default_order(binary, path, options=()):
    """spmv-reorder's order with `options` (none: the default; new -> old, 0-based) and its
    reordering seconds."""
    import json

    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        perm, report = os.path.join(tmp, "p.txt"), os.path.join(tmp, "r.json")
        run_child([binary, path, "--perm-out", perm, "--report", report, "--quiet", *options],
                  "spmv-reorder", path)
        order = np.loadtxt(perm, comments="%", dtype=np.int64) - 1
        with open(report) as f:
            seconds = json.load(f)["reorder_seconds"]
    return order, seconds


def timed(matrices, threads, mkl, reps, copies=1):
    """Median seconds of one MKL product per matrix, rounds alternating between them. With
    `copies` > 1 each matrix is also copied to fresh memory and every copy is timed in the same
    rounds; a matrix's median is over the samples of all its copies, so that where one copy's
    arrays landed weighs less."""
    import numpy as np
    import sparse_dot_mkl

    mkl.MKL_Set_Num_Threads(ctypes.c_int(threads))
    # Every copy has its own `x` too, so that a copy's product reads no array of another's.
    placed = [(k, m if c == 0 else m.copy(), np.ones(m.shape[1]))
              for k, m in matrices.items() for c in range(copies)]
    for _, m, x in placed:
        sparse_dot_mkl.dot_product_mkl(m, x)
    samples = {k: [] for k in matrices}
    for _ in range(reps):
        for k, m, x in placed:
            t = time.perf_counter()
            for _ in range(5):
                sparse_dot_mkl.dot_product_mkl(m, x)
            samples[k].append((time.perf_counter() - t) / 5)
    return {k: statistics.median(v) for k, v in samples.items()}


def evaluate(path, binary, mkl, threads, reps, also=(), jumble=(), copies=1):
    a = load(path)
    s = symmetric_pattern(a)
    orders = {"rcm": rcm(a, s), "gp": metis_partition_order(a, s)}
    for k in list(orders):
        orders[k + " runs"] = with_runs(a, orders[k])
    # The default's even row splits applied to the best locality peer, so that the splits' gain is
    # told apart from locality (the peers of the target are the four orders above).
    orders["rcm runs split"] = spread_over_row_splits(a, orders["rcm runs"])
    orders["default"], cost = default_order(binary, path)
    # Other options of the binary, timed in the same rounds (e.g. `--rcm-start peripheral`).
    for label, options in also:
        orders[label], _ = default_order(binary, path, options)
    mats = {"input": a} | {k: permute(a, p) for k, p in orders.items()}
    print(f"\n## {os.path.basename(path)}: {a.shape[0]} rows, {a.nnz} nonzeros; "
          f"default ordered in {cost:.2f} s")
    print("median ms per product (MKL):")
    print(f"{'threads':8}" + "".join(f"{k:>15}" for k in mats) + f"{'floor':>15}")
    ratios = {}
    for t in threads:
        times = timed(mats, t, mkl, reps, copies)
        best = min(PEERS, key=times.get)
        twin = floor_twin(mats[best])
        twins = {"best": mats[best], "floor": twin} | {
            f"floor jumbled {j}": jumbled(twin, j) for j in jumble}
        pair = timed(twins, t, mkl, reps, copies)
        floor = times[best] * pair["floor"] / pair["best"]
        target = max(0.91 * times[best], 1.05 * floor)
        print(f"{t:<8}" + "".join(f"{v * 1e3:15.2f}" for v in times.values())
              + f"{floor * 1e3:15.2f}")
        print(f"         best peer {best}; default {times['default'] / times[best]:.3f}x its time, "
              f"{times['default'] / target:.3f}x the target, {times['default'] / times['input']:.3f}x "
              f"the input's; best peer {times[best] / floor:.2f}x the floor; default's cost "
              f"{cost / times['input']:.0f} products of the input")
        print(f"         default {times['default'] / times['rcm runs split']:.3f}x the time of RCM with "
              f"runs and the same even row splits")
        if jumble:
            print("         over the best peer's time in the same rounds: floor "
                  f"{pair['floor'] / pair['best']:.3f}; "
                  + "; ".join(f"jumbled in blocks of {j} columns "
                              f"{pair[f'floor jumbled {j}'] / pair['best']:.3f}" for j in jumble))
        ratios[t] = (times["default"] / target, times["default"] / times["input"])
    return ratios


def generate(folder, binary):
    os.makedirs(folder, exist_ok=True)
    for name, spec in GENERATED:
        for shuffled in (False, True):
            path = os.path.join(folder, f"{name}{'-shuffled' if shuffled else ''}.mtx")
            if os.path.exists(path):
                continue
            extra = ["--shuffle", "1"] if shuffled else []
            run_child([binary, "gen", *spec, *extra, "-o", path], "spmv-reorder gen", path)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", help="folder of Matrix Market files (.mtx, .mtx.gz)")
    ap.add_argument("--generate", metavar="DIR", help="write the generated set to DIR and use it")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "spmv-reorder"),
                    metavar="BINARY", help="the spmv-reorder binary (default: the release build)")
    ap.add_argument("--only", metavar="NAME", help="only files whose name contains this")
    ap.add_argument("--reps", type=positive_int, default=7,
                    help="timed rounds per matrix and thread count; medians over them (default 7)")
    ap.add_argument("--threads", type=positive_int_list, default=[1, 2], metavar="T,...",
                    help="MKL thread counts, each at least 1 (default 1,2)")
    ap.add_argument("--also", action="append", default=[], metavar="LABEL=OPTIONS",
                    help="also time spmv-reorder's order with these options, e.g. "
                         "'peripheral=--rcm-start peripheral'")
    ap.add_argument("--copies", type=positive_int, default=1, metavar="N",
                    help="time N copies of each matrix in fresh memory (placement noise)")
    ap.add_argument("--jumbled-floor", default="", metavar="B,...",
                    help="also time the floor with the columns of each block of B permuted")
    args = ap.parse_args()
    try:
        args.jumble = [int(j) for j in args.jumbled_floor.split(",") if j]
    except ValueError:
        ap.error(f"--jumbled-floor {args.jumbled_floor!r}: expected block sizes like 64,512")
    if any(j < 1 for j in args.jumble):
        ap.error(f"--jumbled-floor {args.jumbled_floor!r}: block sizes are at least 1")
    args.folder = args.generate or args.dir
    if not args.folder:
        ap.error("give a folder or --generate DIR")
    args.also_options = []
    for spec in args.also:
        label, sep, options = spec.partition("=")
        if not sep or not label:
            ap.error(f"--also {spec!r}: expected LABEL=OPTIONS")
        if label in RESERVED_LABELS or label in (a for a, _ in args.also_options):
            ap.error(f"--also {spec!r}: the label {label!r} is taken")
        args.also_options.append((label, options.split()))
    require_executable(ap, "--bin", args.bin)
    if args.generate and os.path.exists(args.generate) and not os.path.isdir(args.generate):
        ap.error(f"--generate {args.generate}: not a folder")
    if not args.generate:
        args.files = matrices_in(ap, args.folder, args.only)
    return ap, args


def main():
    ap, args = parse_args()
    threads = args.threads
    if args.generate:
        generate(args.generate, args.bin)
        args.files = matrices_in(ap, args.folder, args.only)
    mkl = mkl_library()
    shuffled, natural = {t: [] for t in threads}, {t: [] for t in threads}
    for f in args.files:
        r = evaluate(f, args.bin, mkl, threads, args.reps, args.also_options, args.jumble,
                     args.copies)
        for t, (to_target, to_input) in r.items():
            (shuffled if "shuffled" in os.path.basename(f) else natural)[t].append(
                (to_target, to_input))
    for t in threads:
        s = [v[0] for v in shuffled[t]]
        if s:
            g = statistics.geometric_mean(s)
            print(f"\n{t} thread(s): default / target over the shuffled matrices, geometric mean "
                  f"{g:.3f} (at most 1: met); per matrix {' '.join(f'{v:.3f}' for v in s)}")
        n = [v[1] for v in natural[t]]
        if n:
            print(f"{t} thread(s): default / input on the matrices as generated: "
                  f"{' '.join(f'{v:.3f}' for v in n)} (at most 1.02: never 2% slower)")


if __name__ == "__main__":
    main()
