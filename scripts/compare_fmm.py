#!/usr/bin/env python3
"""Compare the Matrix Market reader and writer of spmv-reorder-mtx with fast_matrix_market.

fast_matrix_market (https://github.com/alugowski/fast_matrix_market) is the C++ reader behind
scipy.io.mmread. Both sides read the same file and write the same matrix in the same run, with 1
and with 2 threads, alternating runs so that load on a shared machine hits both alike. Each side
times only its own read or write call (ours inside the `mtx_io` bench binary, to the expanded CSR
matrix; fast_matrix_market inside Python, to scipy's COO triplets), best of REPS. Both are timed
in a process that has read before: fast_matrix_market in this Python process (its first call also
starts its thread pool, and takes several times as long), ours after an untimed read in the
bench process. Ratios > 1 mean
spmv-reorder-mtx is faster. One file per field (real, integer, pattern), same structure.

Setup (throwaway venv; the tests of the project never need Python):
    python3 -m venv /tmp/fmmvenv && /tmp/fmmvenv/bin/pip install fast_matrix_market scipy
Run from the repository root:
    /tmp/fmmvenv/bin/python scripts/compare_fmm.py [--rows 1000000] [--nnz 4000000] [--reps 3]
        [--fields real,integer,pattern] [--ops read,write] [--threads 1,2]
        [--workdir /tmp/mtx_compare_fmm] [--binary MTX_IO]

The files (random general coordinate matrices; real values with 17 significant digits, about
132 MB for the defaults; integers of up to 7 digits; patterns) are generated once by our writer
under --workdir and reused.
"""

import argparse
import json
import os
import subprocess
import sys
import time

from cli_common import choice_list, positive_int, positive_int_list, require_executable, run_child


def bench_binary():
    """Builds the `mtx_io` bench target in release mode and returns the executable's path."""
    out = run_child(["cargo", "bench", "--bench", "mtx_io", "--no-run", "--message-format=json"],
                    "cargo bench --no-run", "the mtx_io bench", stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "mtx_io" \
                and msg.get("executable"):
            return msg["executable"]
    sys.exit("compare_fmm: could not find the mtx_io bench executable")


def ours(binary, args):
    """Runs one timing of the bench driver; returns its best time in seconds."""
    out = run_child([binary, *args], "mtx_io", args[1], stdout=subprocess.PIPE, text=True).stdout
    line = next((l for l in out.splitlines() if l.startswith("mtx_io ")), None)
    if line is None:
        sys.exit(f"mtx_io printed no result line on {args[1]}: {binary}")
    fields = dict(f.split("=") for f in line.split()[2:])
    return float(fields["best_s"])


def timed(f):
    t = time.perf_counter()
    result = f()
    return time.perf_counter() - t, result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=positive_int, default=1_000_000,
                   help="rows (and columns) of the generated matrices (default 1000000)")
    p.add_argument("--nnz", type=positive_int, default=4_000_000,
                   help="nonzeros of the generated matrices (default 4000000)")
    p.add_argument("--reps", type=positive_int, default=3,
                   help="alternating runs of each side; the best is kept (default 3)")
    p.add_argument("--workdir", default="/tmp/mtx_compare_fmm",
                   help="folder of the generated files and the written copies")
    p.add_argument("--threads", type=positive_int_list, default=[1, 2], metavar="T,...",
                   help="thread counts, each at least 1 (default 1,2)")
    p.add_argument("--fields", type=choice_list(("real", "integer", "pattern")),
                   default=["real", "integer", "pattern"], metavar="F,...",
                   help="fields of the generated files: real, integer, pattern (default all)")
    p.add_argument("--ops", type=choice_list(("read", "write")), default=["read", "write"],
                   metavar="OP,...", help="what to time: read, write (default both)")
    p.add_argument("--binary", help="the mtx_io bench executable (default: build it)")
    a = p.parse_args()
    if os.path.exists(a.workdir) and not os.path.isdir(a.workdir):
        p.error(f"--workdir {a.workdir}: not a folder")
    if a.binary:
        require_executable(p, "--binary", a.binary, "cargo bench --bench mtx_io --no-run")
    try:
        import fast_matrix_market as fmm
    except ImportError as e:
        sys.exit(f"compare_fmm.py needs fast_matrix_market (pip install fast_matrix_market scipy): {e}")

    os.makedirs(a.workdir, exist_ok=True)
    binary = a.binary or bench_binary()
    ops = a.ops
    threads_list = a.threads
    print(f"fast_matrix_market {fmm.__version__}; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs; best of {a.reps}, alternating")
    print(f"{'field':<9}{'op':<6}{'threads':>8}{'ours s':>10}{'fmm s':>10}{'ours MB/s':>11}"
          f"{'fmm MB/s':>10}{'fmm/ours':>10}")
    for field in a.fields:
        src = os.path.join(a.workdir, f"random_{a.rows}_{a.nnz}_{field}.mtx")
        if not os.path.exists(src):
            run_child([binary, "gen", src, str(a.rows), str(a.nnz), "1", field], "mtx_io gen", src)
        size = os.path.getsize(src)
        out_ours = os.path.join(a.workdir, "out_ours.mtx")
        out_fmm = os.path.join(a.workdir, "out_fmm.mtx")
        matrix = fmm.mmread(src) if "write" in ops else None  # what fast_matrix_market writes
        times = {(op, side, t): [] for op in ops for side in ("ours", "fmm") for t in threads_list}
        for _ in range(a.reps):
            for t in threads_list:
                if "read" in ops:
                    times["read", "ours", t].append(ours(binary, ["read", src, str(t), "1"]))
                    times["read", "fmm", t].append(timed(lambda: fmm.mmread(src, parallelism=t))[0])
                if "write" in ops:
                    times["write", "ours", t].append(
                        ours(binary, ["write", src, out_ours, str(t), "1"]))
                    times["write", "fmm", t].append(
                        timed(lambda: fmm.mmwrite(out_fmm, matrix, parallelism=t))[0])
        for t in threads_list:
            for op in ops:
                o, f = min(times[op, "ours", t]), min(times[op, "fmm", t])
                print(f"{field:<9}{op:<6}{t:>8}{o:>10.3f}{f:>10.3f}{size / o / 1e6:>11.1f}"
                      f"{size / f / 1e6:>10.1f}{f / o:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
