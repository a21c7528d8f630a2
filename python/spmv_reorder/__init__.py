"""Reorder sparse matrices so that ``y = A @ x`` runs faster.

The orderings of spmv-reorder for scipy users, in the conventions of ``scipy.sparse.csgraph``: by
default reverse Cuthill-McKee's order or the input's, whichever a cache model of the ``x`` reads
prices lower, with rows then sorted by length; on request METIS partition and nested
dissection, Gorder, or windows of locality laid out along a Lin-Kernighan TSP path::

    import scipy.sparse as sp, spmv_reorder
    A = spmv_reorder.mmread("matrix.mtx")
    perm = spmv_reorder.reorder(A)   # 0-based, new -> old
    B = A[perm][:, perm]             # P A P^T: B @ x[perm] == (A @ x)[perm]

- :func:`reorder` returns the permutation; :class:`Reorderer` takes every option of the command
  line and returns a :class:`Reordering` with ``perm``, ``col_perm``, ``report`` and ``apply``.
- :func:`mmread` / :func:`mmwrite`: the project's Matrix Market reader and writer.
- :func:`spmv_bench`: the figures of ``spmv-reorder bench --json``.

Every option left ``None`` takes the library's default. Errors are exceptions: ``ValueError`` for
bad input or options (with the library's message), ``OSError`` for files, ``RuntimeError`` for
what this machine cannot do. Long work releases the GIL, and Ctrl-C interrupts a reordering.
"""

from __future__ import annotations

import json
import os

import numpy as np

from . import _convert, _native

__all__ = ["Reorderer", "Reordering", "mmread", "mmwrite", "reorder", "spmv_bench"]

_U64 = 2**64 - 1
_U32 = 2**32 - 1


class Reordering:
    """The result of :meth:`Reorderer.run`: ``B = A[perm][:, col_perm]``.

    Attributes:
        perm: the row order, 0-based, new -> old (``int64``).
        col_perm: the column order; the same array as ``perm`` for a symmetric permutation (the
            default for square matrices), the identity when only rows are permuted.
        report: the library's report as a dict (method, ``D_before``, ``D_after``, TSP cost and
            bound, the cache check, timings: the ``--report`` JSON of the command line without
            the input's name and the benchmark).
    """

    def __init__(self, perm, col_perm, report):
        self.perm = perm
        self.col_perm = col_perm
        self.report = report

    def apply(self, a):
        """``A[perm][:, col_perm]`` as a CSR matrix of the same kind (array or matrix) and dtype,
        with sorted indices."""
        csr = _convert.canonical_csr(a)
        expected = (len(self.perm), len(self.col_perm))
        if csr.shape != expected:
            raise ValueError(f"the matrix is {csr.shape[0]} x {csr.shape[1]}, the reordering is "
                             f"for {expected[0]} x {expected[1]}")
        b = csr[self.perm]
        if not np.array_equal(self.col_perm, np.arange(expected[1])):
            old_to_new = np.empty(expected[1], dtype=b.indices.dtype)
            old_to_new[self.col_perm] = np.arange(expected[1], dtype=b.indices.dtype)
            b.indices = old_to_new[b.indices]
            b.has_sorted_indices = False
            b.sort_indices()
        return b

    def __repr__(self):
        r = self.report
        return (f"Reordering(method={r.get('method')!r}, n={len(self.perm)}, "
                f"D_before={r.get('D_before')}, D_after={r.get('D_after')})")


class Reorderer:
    """The choices of a reordering, as the library's ``Reorderer`` builder takes them.

    Every argument left ``None`` takes the library's default (the command line's). Text options
    use the command line's spellings (``spmv-reorder --help``).

    Args:
        method: ``auto`` (the default), ``tsp``, ``rcm``, ``gp``, ``nd``, ``gorder``,
            ``degree``, ``identity`` or ``random``.
        sampler: ``all``, ``random:P``, ``dast-sim[:k=v,...]``, ``dast-perf`` or a trace.
        window: ``1``, ``N``, ``var``, ``latency[:avg|CYCLES][,zeros]`` or ``cache[:BYTES]``
            (str or int).
        permute: ``symmetric``, ``rows``, ``cols`` or ``both`` (default: symmetric for square
            matrices, rows otherwise).
        seed: seed of every random choice.
        threads: threads (default: all cores).
        time_limit: seconds for the TSP solve (per side).
        neighbours: candidate neighbours per window.
        hub_limit: windows a column may be shared by before the window graph bounds it.
        kicks: Chained Lin-Kernighan kicks after the local search.
        start: where the TSP path starts: ``rcm``, ``given`` or ``greedy``.
        rcm_start: where RCM starts in each component, wherever its order is used:
            ``min-degree`` (the default, as scipy's ``reverse_cuthill_mckee``) or ``peripheral``
            (a pseudo-peripheral node: a smaller bandwidth for about twice RCM's time).
        cache_check: ``False`` returns the TSP path as found, without the cache model's choice.
        length_runs: sort rows by length in blocks of B positions (int, 0 = off) or ``"auto"``.
        length_change_cost: what the path pays for each change of row length.
        row_split_threads: spread the nonzeros evenly over the rows for kernels splitting rows
            evenly between up to N threads (0 = off; default 16 for ``auto``, off otherwise).
        part_rows: rows per part of the METIS partition order (``gp``; default 256).
        symmetric_pattern: ``True`` vouches that the pattern of ``a`` equals its transpose's (a
            Laplacian, a matrix read from a file stored symmetric), so that RCM takes it as read
            instead of checking it, as the command line does for such a file: up to a quarter of
            the default's time on a 1M-row matrix. Vouched for wrongly, the order is still a
            permutation, but a worse one.
    """

    def __init__(self, method=None, *, sampler=None, window=None, permute=None, seed=None,
                 threads=None, time_limit=None, neighbours=None, hub_limit=None, kicks=None,
                 start=None, cache_check=None, length_runs=None, length_change_cost=None,
                 row_split_threads=None, symmetric_pattern=None, rcm_start=None,
                 part_rows=None):
        switches = (("cache_check", cache_check), ("symmetric_pattern", symmetric_pattern))
        for name, switch in switches:
            if switch is not None and not isinstance(switch, bool):
                raise TypeError(f"{name} must be True or False, got {switch!r}")
        self._options = {
            "method": _convert.text("method", method),
            "sampler": _convert.text("sampler", sampler),
            "window": _convert.count_or_text("window", window),
            "permute": _convert.text("permute", permute),
            "start": _convert.text("start", start),
            "rcm_start": _convert.text("rcm_start", rcm_start),
            "length_runs": _convert.count_or_text("length_runs", length_runs),
            "seed": _convert.integer("seed", seed, maximum=_U64),
            "threads": _convert.threads(threads),
            "time_limit": _convert.seconds("time_limit", time_limit),
            "neighbours": _convert.integer("neighbours", neighbours),
            "hub_limit": _convert.integer("hub_limit", hub_limit),
            "kicks": _convert.integer("kicks", kicks, maximum=_U64),
            "cache_check": cache_check,
            "length_change_cost": _convert.integer("length_change_cost", length_change_cost,
                                                   maximum=_U32),
            "row_split_threads": _convert.integer("row_split_threads", row_split_threads),
            "part_rows": _convert.integer("part_rows", part_rows, minimum=1),
            "symmetric_pattern": symmetric_pattern,
        }

    def run(self, a):
        """Orders ``a`` (any scipy sparse matrix or array, or a 2-D array; only its structure is
        read) and returns a :class:`Reordering`.

        Raises:
            ValueError: a matrix or option the library cannot use.
            KeyboardInterrupt: Ctrl-C during the reordering.
        """
        csr = _convert.canonical_csr(a)
        rows, cols, report = _native.reorder(_convert.structure(csr), self._options)
        report = json.loads(report)
        if report.get("permute") == "symmetric":
            cols = rows
        return Reordering(rows, cols, report)

    def __repr__(self):
        set_options = ", ".join(f"{k}={v!r}" for k, v in self._options.items() if v is not None)
        return f"Reorderer({set_options})"


def reorder(a, method=None, sampler=None, window=None, seed=None, threads=None, time_limit=None,
            **options):
    """The permutation that orders ``a`` for SpMV: 0-based, new -> old, so that
    ``a[perm][:, perm]`` is the reordered matrix (``a[perm]`` for a rectangular one).

    Options are those of :class:`Reorderer`; ``None`` takes the library's default.

    Raises:
        ValueError: ``permute`` is ``"cols"`` or ``"both"``, whose column order one permutation
            cannot give: use ``Reorderer(...).run(a)``, whose ``col_perm`` holds it.
    """
    if options.get("permute") in ("cols", "both"):
        raise ValueError(f"reorder returns one permutation, the rows'; with permute="
                         f"{options['permute']!r} use Reorderer(...).run(a), whose .perm and "
                         f".col_perm hold the two orders")
    return Reorderer(method, sampler=sampler, window=window, seed=seed, threads=threads,
                     time_limit=time_limit, **options).run(a).perm


def _path(path):
    # The library reads "-" as standard input and writes it as standard output; here it is a file.
    p = os.fspath(path)
    return os.path.join(".", p) if p == "-" else p


def mmread(path, *, threads=None):
    """Reads a Matrix Market file (any format, field and symmetry; plain or gzipped) into a
    ``scipy.sparse.csr_array`` with both triangles of a symmetric matrix, as ``scipy.io.mmread``
    gives them. Integer files give ``int64``, complex ``complex128``, real and pattern
    ``float64`` (pattern entries are 1).

    Raises:
        OSError: the file cannot be read.
        ValueError: the file is malformed (the message names the file and line).
    """
    threads = _convert.threads(threads)
    (indptr, indices, data), nrows, ncols = _native.mmread(_path(path), threads)
    return _convert.from_arrays(indptr, indices, data, (nrows, ncols))


def mmwrite(path, a, comment=None, field=None, symmetry=None, *, threads=None):
    """Writes ``a`` to a Matrix Market coordinate file, gzipped when ``path`` ends in ``.gz``.

    The file is written to a temporary file and renamed: never half-written. ``field`` defaults to
    the one that holds the dtype exactly (integer for integer and bool dtypes, real, complex);
    ``"pattern"`` writes the structure alone. ``symmetry`` (``general`` by default,
    ``symmetric``, ``skew-symmetric``, ``hermitian``) stores the lower triangle after checking that
    the matrix has it. Reals are written in shortest round-trip form: reading gives every bit back.

    Raises:
        ValueError: a field or symmetry the matrix does not have.
        TypeError: a dtype no field holds exactly (long double) when ``field`` is not given.
        OSError: the file cannot be written.
    """
    csr = _convert.canonical_csr(a)
    if field is None:
        field = _convert.field_of(csr.dtype)
    data = _convert.values(csr, _convert.text("field", field).lower())
    threads = _convert.threads(threads)
    _native.mmwrite(_path(path), _convert.structure(csr), data,
                    _convert.text("symmetry", symmetry), _convert.text("comment", comment),
                    threads)


def spmv_bench(a, perm=None, *, threads=None, kernel=None, reps=None, warmup=None, stream_mb=None,
               stream_reps=None, pin=None, place=None, reorder_seconds=None):
    """Times the parallel CSR SpMV kernels on ``a`` next to a STREAM triad, and with ``perm``
    (0-based, new -> old, or a :class:`Reordering`) also ``a[perm][:, perm]``, alternating the
    repetitions of both. Returns the dict of ``spmv-reorder bench --json``: one report, or
    ``before``, ``after``, the per-kernel speedups and the speedup with a permutation.

    Options take the command line's defaults when ``None``: ``threads`` (every core),
    ``kernel`` (``all``), ``reps`` (20), ``warmup`` (3), ``stream_mb`` (80, at most 1000000;
    0 skips the triad), ``stream_reps`` (10, at most 1000), ``pin`` (``scatter``), ``place``
    (``first-touch``). Complex values contribute their real part, as on the command line.

    Raises:
        RuntimeError: this build has no benchmark, or this machine refuses the threads.
        ValueError: bad options, or a permutation of the wrong length.
        MemoryError: the triad's arrays are more than this process can allocate.
    """
    if not _native.HAS_BENCH:
        raise RuntimeError("this build of spmv_reorder has no SpMV benchmark: it was built "
                           "without the cargo feature 'bench' (which links the hwloc library)")
    csr = _convert.canonical_csr(a)
    if isinstance(perm, Reordering):
        if perm.col_perm is not perm.perm:
            raise ValueError("spmv_bench applies a symmetric permutation; this reordering "
                             "permutes rows and columns differently")
        perm = perm.perm
    if perm is not None:
        perm = _convert.permutation("perm", perm, csr.shape[0])
    data = np.ascontiguousarray(csr.data.real if csr.dtype.kind == "c" else csr.data,
                                dtype=np.float64)
    options = {
        "threads": _convert.threads(threads),
        "kernel": _convert.text("kernel", kernel),
        "reps": _convert.integer("reps", reps, minimum=1),
        "warmup": _convert.integer("warmup", warmup),
        "stream_mb": _convert.integer("stream_mb", stream_mb),
        "stream_reps": _convert.integer("stream_reps", stream_reps, minimum=1),
        "pin": _convert.text("pin", pin),
        "place": _convert.text("place", place),
        "reorder_seconds": _convert.seconds("reorder_seconds", reorder_seconds),
    }
    return json.loads(_native.spmv_bench(_convert.structure(csr), data, perm, options))
