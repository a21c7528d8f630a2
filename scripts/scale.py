#!/usr/bin/env python3
"""The main job at 100M nonzeros: per stage, time and peak memory; reading speed against
fast_matrix_market. docs/scale.md holds the figures it printed and the machine they came from.

For each matrix (R-MAT scale 22, about 4M rows and 130M nonzeros; a 3D Poisson grid of 229^3,
about 12M rows and 84M nonzeros; both shuffled by a random symmetric permutation, as real inputs
rarely come well ordered), unless the machine's available memory cannot hold it:
1. `spmv-reorder gen ... --shuffle 1` writes it (once, under --workdir; timed, with its peak);
2. for each method, `spmv-reorder IN -o OUT --bench --method M --report R.json` runs under
   /usr/bin/time -v; the report's `stages` give each stage's seconds and peak resident memory
   (VmHWM reset at each stage), the largest of which is the run's peak;
3. with --fmm, reading the file with spmv-reorder-mtx and with fast_matrix_market, 1 and 2
   threads, alternating (scripts/compare_fmm.py's drivers).
Peak memory is also given as a multiple of the matrix's CSR size: 12 bytes per nonzero (u32
column index, f64 value) plus 8 per row.

Run from the repository root, one job at a time (each is heavy; on a shared machine, niced):
    nice -n 19 python3 scripts/scale.py [--workdir /tmp/spmv_scale] [--matrices rmat22,poisson3d229]
        [--methods auto,rcm,degree,identity,random,gp,nd,tsp,gorder] [--bench-methods M,...]
        [--threads 2] [--timeout SECONDS] [--fmm [--reps 2] [--mtx-io MTX_IO]] [--binary BINARY]
The binary is this repository's target/release/spmv-reorder (cargo build --release first) unless
--binary says.
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

from cli_common import choice_list, positive_float, positive_int, require_executable

MATRICES = {
    # name: (gen arguments, rows, approximate expanded nonzeros)
    "rmat22": (["rmat", "--scale", "22"], 1 << 22, 130_000_000),
    "poisson3d229": (["poisson3d", "--nx", "229"], 229**3, 7 * 229**3),
}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))



def csr_bytes(rows, nnz):
    return 12 * nnz + 8 * (rows + 1)


def available_bytes():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 0


def timed_run(args, log, timeout=None):
    """Runs `args` under /usr/bin/time -v; returns (seconds, peak RSS bytes, return code), the
    code None when it was stopped after `timeout` seconds."""
    start = time.perf_counter()
    with open(log, "w") as err:
        proc = subprocess.Popen(["/usr/bin/time", "-v", *args], stdout=subprocess.DEVNULL,
                                stderr=err, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = None
    seconds = time.perf_counter() - start
    text = open(log).read()
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    return seconds, int(peak.group(1)) * 1024 if peak else None, rc


def gib(b):
    return "-" if b is None else f"{b / 2**30:.2f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workdir", default="/tmp/spmv_scale",
                   help="folder of the generated matrices, outputs, reports and logs")
    p.add_argument("--matrices", type=choice_list(tuple(MATRICES)), default=list(MATRICES),
                   metavar="M,...", help=f"some of {', '.join(MATRICES)} (default both)")
    p.add_argument("--methods", default="auto,rcm,degree,identity,random,gp,nd,tsp,gorder",
                   help="comma-separated methods, each run on each matrix")
    p.add_argument("--threads", type=positive_int, default=2, help="threads of each run (default 2)")
    p.add_argument("--fmm", action="store_true", help="also compare reading with fast_matrix_market")
    p.add_argument("--reps", type=positive_int, default=2,
                   help="reads of each side with --fmm; the best is kept (default 2)")
    p.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "spmv-reorder"),
                   help="the spmv-reorder binary (default: this repository's release build)")
    p.add_argument("--timeout", type=positive_float, metavar="SECONDS",
                   help="seconds after which a method's run is stopped")
    p.add_argument("--bench-methods", help="the methods run with --bench (default: all; none: no method)")
    p.add_argument("--mtx-io", help="the mtx_io bench executable for --fmm (default: build it)")
    a = p.parse_args()
    if os.path.exists(a.workdir) and not os.path.isdir(a.workdir):
        p.error(f"--workdir {a.workdir}: not a folder")
    if not [m for m in a.methods.split(",") if m]:
        p.error("--methods: no method given")
    require_executable(p, "--binary", a.binary)
    if a.mtx_io:
        require_executable(p, "--mtx-io", a.mtx_io, "cargo bench --bench mtx_io --no-run")
    os.makedirs(a.workdir, exist_ok=True)
    print(f"machine: {os.cpu_count()} CPUs, {available_bytes() / 2**30:.1f} GiB available; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for name in a.matrices:
        gen_args, rows, nnz = MATRICES[name]
        csr = csr_bytes(rows, nnz)
        # Generating holds the triplets and the CSR matrix; the job holds about 3x CSR.
        need = max(3 * csr, 24 * nnz + csr)
        if need > 0.9 * available_bytes():
            print(f"{name}: skipped, needs about {gib(need)} GiB, "
                  f"{gib(available_bytes())} GiB available", flush=True)
            continue
        path = os.path.join(a.workdir, f"{name}-shuffled.mtx")
        if not os.path.exists(path):
            s, peak, rc = timed_run([a.binary, "gen", *gen_args, "--shuffle", "1", "-o", path],
                                    os.path.join(a.workdir, f"{name}-gen.log"))
            if rc:
                sys.exit(f"{name}: generating failed, see {a.workdir}/{name}-gen.log")
            print(f"{name}: generated in {s:.1f} s, peak {gib(peak)} GiB", flush=True)
        print(f"{name}: {path}, {os.path.getsize(path) / 1e9:.2f} GB; CSR about {gib(csr)} GiB",
              flush=True)
        for method in [m for m in a.methods.split(",") if m]:
            run_method(a, name, path, method, csr)
        if a.fmm:
            compare_reading(a, path)


def run_method(a, name, path, method, csr):
    out = os.path.join(a.workdir, f"{name}-{method}.mtx")
    report = os.path.join(a.workdir, f"{name}-{method}.json")
    log = os.path.join(a.workdir, f"{name}-{method}.log")
    bench = a.bench_methods is None or method in a.bench_methods.split(",")
    s, peak, rc = timed_run([a.binary, path, "-o", out, *(["--bench"] if bench else []), "--method",
                             method, "--threads", str(a.threads), "--report", report, "--quiet"], log,
                            a.timeout)
    if rc is None:
        print(f"{name} {method}: stopped after {s:.0f} s (--timeout), unfinished", flush=True)
        for leftover in (out, report):
            for f in os.listdir(a.workdir):
                if f.startswith("." + os.path.basename(leftover)):
                    os.remove(os.path.join(a.workdir, f))
        return
    if rc:
        print(f"{name} {method}: FAILED ({rc}) after {s:.1f} s, see {log}", flush=True)
        return
    r = json.load(open(report))
    # Each stage resets the kernel's high-water mark, which time -v reads at exit: the run's
    # peak is the largest of the stages'.
    peak = max([peak or 0] + [st["peak_rss_bytes"] or 0 for st in r["stages"]])
    speedup = f"SpMV {r['bench']['speedup']:.2f}x" if r.get("bench") else "no --bench"
    print(f"{name} {method}: {s:.1f} s in all, peak {gib(peak)} GiB = {peak / csr:.2f}x CSR; "
          f"{speedup}", flush=True)
    for stage in r["stages"]:
        print(f"    {stage['stage'][:60]:<60} {stage['seconds']:>9.2f} s "
              f"{gib(stage['peak_rss_bytes']):>7} GiB", flush=True)
    os.remove(out)


def compare_reading(a, path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import compare_fmm
    import fast_matrix_market as fmm

    binary = a.mtx_io or compare_fmm.bench_binary()
    for threads in (1, 2):
        ours, theirs = [], []
        for _ in range(a.reps):
            ours.append(compare_fmm.ours(binary, ["read", path, str(threads), "1"]))
            theirs.append(compare_fmm.timed(lambda: fmm.mmread(path, parallelism=threads))[0])
        print(f"  read {threads} thread(s): ours {min(ours):.2f} s, fast_matrix_market "
              f"{min(theirs):.2f} s, fmm/ours {min(theirs) / min(ours):.2f}", flush=True)


if __name__ == "__main__":
    main()
