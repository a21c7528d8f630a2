#!/usr/bin/env python3
"""Summary table of an `spmv-reorder evaluate --json` file: geometric means over the matrices of
D / D(input), speedups over the input and over RCM (one column per thread count of the file's
`threads`, e.g. `speedup 1t`, `speedup 2t`), how many matrices each TSP ordering gives a lower D
than both RCM and Gorder (RCM alone without a Gorder run), and the median reordering cost in SpMVs.
A figure that cannot be given (no `rcm` ordering in the file) prints "-", with the reason under
the table.

Usage: python3 scripts/eval_summary.py EVALUATE.json  (prints a Markdown table)
"""
import argparse
import json
import math
import statistics
import sys


def geometric_mean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def load(path):
    """The matrices of an `evaluate --json` file and their common thread counts; ends the script
    with one line naming the file when it is not such a file."""
    try:
        with open(path) as f:
            d = json.load(f)
    except OSError as e:
        sys.exit(f"eval_summary.py: {path}: {e.strerror}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        sys.exit(f"eval_summary.py: {path}: not JSON ({e})")
    matrices = d.get("matrices") if isinstance(d, dict) else None
    if not isinstance(matrices, list):
        sys.exit(f"eval_summary.py: {path}: not an `evaluate --json` file (no \"matrices\" list)")
    if not matrices:
        sys.exit(f"eval_summary.py: {path}: no matrix was evaluated")
    try:
        threads = matrices[0]["threads"]
        for m in matrices:
            if m["threads"] != threads:
                sys.exit(f"eval_summary.py: {path}: {m['name']} was timed with threads "
                         f"{m['threads']}, {matrices[0]['name']} with {threads}")
            if not any(r["label"] == "identity" for r in m["results"]):
                sys.exit(f"eval_summary.py: {path}: {m['name']} has no identity result")
    except (KeyError, TypeError) as e:
        sys.exit(f"eval_summary.py: {path}: not an `evaluate --json` file (missing {e})")
    return matrices, threads


def row(label, matrices, threads):
    """The table row of ordering `label`: its cells in the header's order, thread counts
    ascending (a figure is found by its thread count's position in the file's `threads`)."""
    have = [m for m in matrices if any(r["label"] == label for r in m["results"])]
    dr, cost, below = [], [], 0
    speedup = {t: [] for t in threads}
    over_rcm = {t: [] for t in threads}
    for m in have:
        res = {r["label"]: r for r in m["results"]}
        r = res[label]
        dr.append(max(r["D"], 1) / max(res["identity"]["D"], 1))
        cost.append(r["reorder_spmv_equivalents"])
        for k, t in enumerate(threads):
            speedup[t].append(r["speedup"][k])
            if r.get("speedup_over_rcm") is not None:
                over_rcm[t].append(r["speedup_over_rcm"][k])
        # Without a Gorder run the count is of D below RCM's alone.
        if "rcm" in res and r["D"] < res["rcm"]["D"] and r["D"] < res.get("gorder", res["rcm"])["D"]:
            below += 1
    rcm_everywhere = all(any(r["label"] == "rcm" for r in m["results"]) for m in have)
    cells = [label, f"{geometric_mean(dr):.3f}"]
    cells += [gm(speedup[t], len(have)) for t in sorted(threads)]
    cells += [gm(over_rcm[t], len(have)) for t in sorted(threads)]
    cells.append(f"{below} / {len(have)}" if label.startswith("tsp") and rcm_everywhere
                 else ("-" if label.startswith("tsp") else ""))
    cells.append(f"{statistics.median(cost):.0f}")
    return cells


def gm(xs, expected):
    """The geometric mean of `xs` to 3 digits, or "-" when some matrix lacks the figure."""
    if len(xs) < expected or not xs or min(xs) <= 0:
        return "-"
    return f"{geometric_mean(xs):.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", metavar="EVALUATE.json", help="the output of `spmv-reorder evaluate --json`")
    args = ap.parse_args()
    matrices, threads = load(args.json)
    columns = sorted(threads)
    labels = []
    for m in matrices:
        labels += [r["label"] for r in m["results"] if r["label"] not in labels]
    head = (["ordering", "D / D(input)"] + [f"speedup {t}t" for t in columns]
            + [f"vs RCM {t}t" for t in columns]
            + ["`D` below RCM and Gorder", "median reorder cost (SpMVs)"])
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 1))
    for label in labels:
        if label != "identity":
            print("| " + " | ".join(row(label, matrices, threads)) + " |")
    if not all(any(r["label"] == "rcm" for r in m["results"]) for m in matrices):
        print("\n-: no `rcm` ordering for some matrix in the file, so no figure relative to RCM")



if __name__ == "__main__":
    main()
