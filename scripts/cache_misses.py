#!/usr/bin/env python3
"""Deterministic cache misses of SpMV after each ordering, under valgrind's cache simulator.

Timings on the shared 2-core machines are noisy; a cache simulator is not (SPEC section 6). For each
matrix, this script shuffles it (a random symmetric permutation, as `evaluate --shuffle` does), reorders
the shuffled matrix with each method through the `spmv-reorder` binary, and runs

    valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=1048576,16,64 \\
        spmv-reorder trace-kernel M.mtx --iterations K --kernel per-row

for K = 1 and K = 1 + PRODUCTS. The difference of the two runs is the misses of PRODUCTS products alone
(reading the file and building the matrix cancel out). LL is one core's L2 (1 MiB, or --ll BYTES)
because that is the level the order of `x` decides on these matrices; D1 is the L1 data cache. Printed
per matrix and ordering: D1 and LL read misses per product and per nonzero, then the geometric mean over
matrices of each ordering's misses relative to RCM's, and relative to the best per matrix of the
orderings named by --best-of.

With --floor, each ordered matrix's ideal-locality twin is simulated too: the same row lengths, row i's
k nonzeros moved to columns i..i+k-1 (shifted left at the last rows), so that `x` is read in sequence
(the floor of `mkl_eval.py`). What an ordering misses beyond its twin is all that any order of those
rows could still save; the summary gives each ordering's misses over its twin's and, with --best-of,
the fewest twin's misses over the best of those orderings (about the lowest ratio any order could
reach).

Usage: python3 scripts/cache_misses.py [--products P] [--ordering 'tsp' ...] [--ll BYTES]
           [--best-of rcm,gp,nd] [--floor] [--time-limit SECONDS] [--json F] [FILE ...]
       (default: every matrices/*.mtx.gz; orderings rcm, gorder, tsp, tsp random:0.02; an ordering is
       spelled as for `evaluate --ordering`, e.g. 'auto', 'gp', 'tsp window=cache:32K': the method,
       then a sampler, start=, window=, check=off, kicks=N, runs=, splits=, parts=, length-cost=,
       rcm-start=; `kicks=n` has no command-line equivalent and is refused)
Each TSP solve gets --time-limit seconds (10, as `evaluate`'s default). Where the matrix fits the
simulated LL, LL misses per product are 0 and the LL ratios print "-".
Needs valgrind and a release build (`cargo build --release`; or the binary named by $SPMV_REORDER_BIN).
No Python packages.
"""

import argparse
import glob
import json
import math
import os
import re
import sys
import tempfile

from cli_common import positive_int, refuse_overwrite, require_files, run_child, write_atomically

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("SPMV_REORDER_BIN", os.path.join(ROOT, "target", "release", "spmv-reorder"))
D1_AND_I1 = ["--D1=32768,8,64", "--I1=32768,8,64"]


def run(cmd, on):
    """Runs `cmd` on the file `on`, its output captured; a failure ends the script with the
    child's stderr, then one line naming the program, the file and the exit status."""
    return run_child(cmd, os.path.basename(cmd[0]), on, capture_output=True, text=True)


def misses(matrix, iterations, tmp, ll_bytes, source):
    """(D1 read misses, LL read misses) of one traced run of `matrix` (made from `source`)."""
    out = os.path.join(tmp, "cg.out")
    layout = os.path.join(tmp, "layout.json")
    run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", *D1_AND_I1, f"--LL={ll_bytes},16,64",
         f"--cachegrind-out-file={out}",
         BIN, "trace-kernel", matrix, "--emit-layout", layout, "--iterations", str(iterations),
         "--kernel", "per-row", "--threads", "1"], source)
    events, summary = None, None
    with open(out) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                summary = [int(v) for v in line.split()[1:]]
    if events is None or summary is None:
        sys.exit(f"{out}: no events/summary line")
    v = dict(zip(events, summary))
    return v["D1mr"], v["DLmr"]


def row_lengths(path):
    """(row lengths, columns) of a Matrix Market coordinate file as `spmv-reorder` writes it (not
    compressed), with a symmetric file's mirrored entries counted."""
    with open(path) as f:
        header = f.readline().lower().split()
        if len(header) < 5 or header[1] != "matrix" or header[2] != "coordinate":
            sys.exit(f"{path}: expected a Matrix Market coordinate file, found {' '.join(header)!r}")
        mirrored = header[4] != "general"
        line = f.readline()
        while line.startswith("%") or not line.strip():
            line = f.readline()
        nrows, ncols, _ = (int(v) for v in line.split())
        lengths = [0] * nrows
        for line in f:
            if not line.strip():
                continue
            i, j = line.split(maxsplit=2)[:2]
            i, j = int(i) - 1, int(j) - 1
            lengths[i] += 1
            if mirrored and i != j:
                lengths[j] += 1
    return lengths, ncols


def floor_twin(src, dst):
    """Writes to `dst` the ideal-locality twin of `src`: the same row lengths, row i's k nonzeros at
    columns first..first+k-1 with first = max(0, min(i, ncols - k)), as a pattern file (values do
    not change which lines are read)."""
    lengths, ncols = row_lengths(src)
    with open(dst, "w") as out:
        out.write("%%MatrixMarket matrix coordinate pattern general\n")
        out.write(f"{len(lengths)} {ncols} {sum(lengths)}\n")
        for i, k in enumerate(lengths):
            first = max(0, min(i, ncols - k))
            out.write("".join(f"{i + 1} {c + 1}\n" for c in range(first, first + k)))


# The changes of an `evaluate --ordering` spelling and the binary's options they stand for.
OPTION_OF = {"start=": "--start", "window=": "--window", "kicks=": "--kicks", "runs=": "--length-runs",
             "splits=": "--row-split-threads", "parts=": "--part-rows",
             "length-cost=": "--length-change-cost", "rcm-start=": "--rcm-start"}


def reorder_options(spelling):
    """The binary's options for an ordering spelled as for `evaluate --ordering`; ValueError for a
    change the binary has no option for."""
    words = spelling.split()
    if not words:
        raise ValueError("empty ordering")
    options = ["--method", words[0]]
    for w in words[1:]:
        prefix = next((p for p in OPTION_OF if w.startswith(p)), None)
        if w == "check=off":
            options += ["--no-cache-check"]
        elif w == "kicks=n":
            raise ValueError("kicks=n (one kick per window) has no command-line equivalent")
        elif prefix:
            options += [OPTION_OF[prefix], w[len(prefix):]]
        elif "=" in w:
            raise ValueError(f"unknown change {w!r}")
        else:
            options += ["--sampler", w]
    return options


def reorder(src, dst, spelling, time_limit, source):
    """Reorders `src` (made from `source`) into `dst` with an ordering spelled as for
    `evaluate --ordering`."""
    run([BIN, src, "-o", dst, "-q", *reorder_options(spelling), "--time-limit", str(time_limit)],
        source)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", metavar="FILE",
                    help="Matrix Market files, .mtx or .mtx.gz (default: every matrices/*.mtx.gz)")
    ap.add_argument("--products", type=positive_int, default=5, metavar="P",
                    help="products simulated beyond the first run's one (default 5)")
    ap.add_argument("--ordering", action="append", default=None, metavar="SPEC",
                    help="an ordering as for `evaluate --ordering` (repeat for several; default "
                         "rcm, gorder, tsp, tsp random:0.02)")
    ap.add_argument("--ll", type=positive_int, default=1 << 20, metavar="BYTES",
                    help="simulated LL (L2) size in bytes (default 1048576)")
    ap.add_argument("--best-of", default="", help="comma-separated orderings: the per-matrix best of them")
    ap.add_argument("--floor", action="store_true", help="also simulate each ordered matrix's ideal-locality twin")
    ap.add_argument("--time-limit", type=positive_int, default=10, metavar="SECONDS",
                    help="time budget of each TSP solve (default 10, as evaluate's)")
    ap.add_argument("--json", metavar="F", help="also write every figure to F (a new file or one "
                    "this script wrote; never one of the inputs)")
    args = ap.parse_args()
    args.best_of = [b for b in args.best_of.split(",") if b]
    args.files = args.files or sorted(glob.glob(os.path.join(ROOT, "matrices", "*.mtx.gz")))
    if not args.files:
        ap.error(f"no FILE given and no matrix in {os.path.join(ROOT, 'matrices')}")
    require_files(ap, args.files)
    orderings = args.ordering or ["rcm", "gorder", "tsp", "tsp random:0.02"]
    for needed in reversed(["rcm"] + args.best_of):
        if needed not in orderings:
            orderings = [needed] + orderings
    for spelling in orderings:
        try:
            reorder_options(spelling)
        except ValueError as e:
            ap.error(f"--ordering {spelling!r}: {e}")
    args.ordering = orderings
    if not os.path.exists(BIN):
        sys.exit(f"{BIN} missing: run `cargo build --release` first")
    if args.json:
        refuse_overwrite(ap, "--json", args.json, [*args.files, BIN])
    return args


def main():
    args = parse_args()
    files, best_of, orderings = args.files, args.best_of, args.ordering
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'matrix':<16} {'ordering':<22} {'D1 miss/SpMV':>13} {'LL miss/SpMV':>13} {'D1/nnz':>7} {'LL/nnz':>7}")
        for f in files:
            name = re.sub(r"\.mtx(\.gz)?$", "", os.path.basename(f))
            shuffled = os.path.join(tmp, "shuffled.mtx")
            run([BIN, f, "-o", shuffled, "-q", "--method", "random", "--seed", "1"], f)
            info = json.loads(run([BIN, "info", shuffled, "--json"], f).stdout)
            nnz = info["nnz"]
            for spelling in ["identity"] + orderings:
                m = os.path.join(tmp, "ordered.mtx")
                reorder(shuffled, m, spelling, args.time_limit, f)
                d1, ll = per_product(m, tmp, args, f)
                result = {"matrix": name, "ordering": spelling, "nnz": nnz, "d1_misses": d1, "ll_misses": ll}
                label = label_of(spelling)
                print(f"{name:<16} {label:<22} {d1:>13.0f} {ll:>13.0f} {d1 / nnz:>7.3f} {ll / nnz:>7.3f}", flush=True)
                if args.floor:
                    twin = os.path.join(tmp, "twin.mtx")
                    floor_twin(m, twin)
                    result["floor_d1_misses"], result["floor_ll_misses"] = fd1, fll = per_product(twin, tmp, args, f)
                    print(f"{'':<16} {'  its twin':<22} {fd1:>13.0f} {fll:>13.0f} {fd1 / nnz:>7.3f} {fll / nnz:>7.3f}",
                          flush=True)
                results.append(result)
    summarise(results, ["identity"] + orderings, ["rcm"], "RCM")
    if best_of:
        summarise(results, ["identity"] + orderings, best_of, "the best of " + ", ".join(best_of))
    if args.floor:
        summarise_floor(results, ["identity"] + orderings)
        if best_of:
            summarise_reach(results, best_of)
    if args.json:
        write_atomically(args.json, lambda fh: json.dump(results, fh, indent=1))


def per_product(matrix, tmp, args, source):
    """(D1, LL) read misses of one product of `matrix`: the runs of 1 and 1 + P products differ by P.
    A matrix that fits a level misses it no more in the longer run; the two runs' start-up can
    then differ by a few misses either way, which is no product's figure: at least 0 is kept."""
    d1a, lla = misses(matrix, 1, tmp, args.ll, source)
    d1b, llb = misses(matrix, 1 + args.products, tmp, args.ll, source)
    return max(0, d1b - d1a) / args.products, max(0, llb - lla) / args.products


def label_of(spelling):
    """How an ordering is printed: the identity of the shuffled matrix is the shuffled input."""
    return "shuffled" if spelling == "identity" else spelling


def geometric_mean(ratios):
    return math.exp(sum(map(math.log, ratios)) / len(ratios))


def mean_or_why(ratios, key):
    """The geometric mean of `ratios` printed to 3 digits, or "-" and why there is none: a ratio
    needs misses on both sides, and a matrix that fits the simulated cache has none after the
    first product."""
    if ratios:
        return f"{geometric_mean(ratios):.3f}"
    if key.startswith("ll"):
        return "-      no matrix with LL misses: each fits the simulated LL (--ll)"
    return "-      no matrix with D1 misses"


def summarise_floor(results, spellings):
    """Prints each ordering's geometric mean over matrices of its misses over its own twin's."""
    print("\ngeometric mean over matrices of misses relative to the ordering's ideal-locality twin:")
    for spelling in spellings:
        for key in ["d1_misses", "ll_misses"]:
            ratios = [r[key] / r["floor_" + key] for r in results
                      if r["ordering"] == spelling and r[key] > 0 and r["floor_" + key] > 0]
            label = label_of(spelling)
            print(f"  {label:<22} {key:<10} {mean_or_why(ratios, key)}")


def summarise_reach(results, reference):
    """Prints the geometric mean over matrices of the fewest misses of any twin over the fewest of
    the `reference` orderings: about the lowest ratio to them that any order could reach, since a
    twin misses only what every order must (each line of the arrays read once)."""
    print(f"\ngeometric mean over matrices of the fewest twin's misses relative to the best of "
          f"{', '.join(reference)} (what any order could reach, about):")
    for key in ["d1_misses", "ll_misses"]:
        ratios = []
        for name in sorted({r["matrix"] for r in results}):
            rows = [r for r in results if r["matrix"] == name]
            twin = min(r["floor_" + key] for r in rows)
            best = min(r[key] for r in rows if r["ordering"] in reference)
            if twin > 0 and best > 0:
                ratios.append(twin / best)
        over = f"  (over {len(ratios)} matrices)" if ratios else ""
        print(f"  {key:<10} {mean_or_why(ratios, key)}{over}")


def summarise(results, spellings, reference, what):
    """Prints each ordering's geometric mean over matrices of its misses over the per-matrix fewest
    misses of the `reference` orderings."""
    print(f"\ngeometric mean over matrices of misses relative to {what} (lower is better):")
    for spelling in spellings:
        for key in ["d1_misses", "ll_misses"]:
            ratios = []
            for name in sorted({r["matrix"] for r in results}):
                get = {r["ordering"]: r for r in results if r["matrix"] == name}
                a, b = get[spelling][key], min(get[ref][key] for ref in reference)
                if a > 0 and b > 0:
                    ratios.append(a / b)
            label = label_of(spelling)
            fewer = f"  (fewer on {sum(r < 1 for r in ratios)} of {len(ratios)})" if ratios else ""
            print(f"  {label:<22} {key:<10} {mean_or_why(ratios, key)}{fewer}")


if __name__ == "__main__":
    main()
