#!/usr/bin/env python3
"""Compare the Matrix Market reader and writer of spmv-reorder-mtx with fast_matrix_market.

fast_matrix_market (https://github.com/alugowski/fast_matrix_market) is the C++ reader behind
scipy.io.mmread. Both sides read the same file and write the same matrix in the same run, with 1
and with 2 threads, alternating runs so that load on a shared machine hits both alike. Each side
times only its own read or write call (ours inside the `mtx_io` bench binary, fast_matrix_market
inside Python), best of REPS. Ratios > 1 mean spmv-reorder-mtx is faster.

Setup (throwaway venv; the tests of the project never need Python):
    python3 -m venv /tmp/fmmvenv && /tmp/fmmvenv/bin/pip install fast_matrix_market scipy
Run from the repository root:
    /tmp/fmmvenv/bin/python scripts/compare_fmm.py [--rows 1000000] [--nnz 4000000] [--reps 3]

The file (random real general coordinate matrix, values with 17 significant digits; about 132 MB
for the defaults) is generated once by our writer under --workdir and reused.
"""

import argparse
import json
import os
import subprocess
import sys
import time


def bench_binary():
    """Builds the `mtx_io` bench target in release mode and returns the executable's path."""
    out = subprocess.run(
        ["cargo", "bench", "--bench", "mtx_io", "--no-run", "--message-format=json"],
        check=True, stdout=subprocess.PIPE, text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "mtx_io" \
                and msg.get("executable"):
            return msg["executable"]
    sys.exit("compare_fmm: could not find the mtx_io bench executable")


def ours(binary, args):
    """Runs one timing of the bench driver; returns its best time in seconds."""
    out = subprocess.run([binary, *args], check=True, stdout=subprocess.PIPE, text=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("mtx_io "))
    fields = dict(f.split("=") for f in line.split()[2:])
    return float(fields["best_s"])


def timed(f):
    t = time.perf_counter()
    result = f()
    return time.perf_counter() - t, result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--nnz", type=int, default=4_000_000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--workdir", default="/tmp/mtx_compare_fmm")
    p.add_argument("--threads", default="1,2")
    a = p.parse_args()

    import fast_matrix_market as fmm

    os.makedirs(a.workdir, exist_ok=True)
    binary = bench_binary()
    src = os.path.join(a.workdir, f"random_{a.rows}_{a.nnz}.mtx")
    if not os.path.exists(src):
        subprocess.run([binary, "gen", src, str(a.rows), str(a.nnz), "1"], check=True)
    size = os.path.getsize(src)
    out_ours = os.path.join(a.workdir, "out_ours.mtx")
    out_fmm = os.path.join(a.workdir, "out_fmm.mtx")
    print(f"file {src}: {size / 1e6:.1f} MB; fast_matrix_market {fmm.__version__}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")

    matrix = fmm.mmread(src)  # the matrix fast_matrix_market writes (scipy COO)
    rows = []
    for threads in [int(t) for t in a.threads.split(",")]:
        best = {"our_read": [], "fmm_read": [], "our_write": [], "fmm_write": []}
        for _ in range(a.reps):
            best["our_read"].append(ours(binary, ["read", src, str(threads), "1"]))
            best["fmm_read"].append(timed(lambda: fmm.mmread(src, parallelism=threads))[0])
            best["our_write"].append(ours(binary, ["write", src, out_ours, str(threads), "1"]))
            best["fmm_write"].append(timed(lambda: fmm.mmwrite(out_fmm, matrix, parallelism=threads))[0])
        b = {k: min(v) for k, v in best.items()}
        rows.append((threads, b))

    print(f"{'op':<6}{'threads':>8}{'ours s':>10}{'fmm s':>10}{'ours MB/s':>11}{'fmm MB/s':>10}{'fmm/ours':>10}")
    for threads, b in rows:
        for op in ("read", "write"):
            o, f = b[f"our_{op}"], b[f"fmm_{op}"]
            print(f"{op:<6}{threads:>8}{o:>10.3f}{f:>10.3f}{size / o / 1e6:>11.1f}{size / f / 1e6:>10.1f}{f / o:>10.2f}")


if __name__ == "__main__":
    main()
