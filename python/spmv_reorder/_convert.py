"""Scipy matrices to the CSR arrays the native module takes, and back.

Formats, duplicates and unsorted indices are settled here, by scipy; the native module checks the
arrays again and raises ``ValueError`` for anything it cannot use.
"""

from __future__ import annotations

import operator
import os

import numpy as np
import scipy.sparse as sp


def canonical_csr(a, name="A"):
    """``a`` as a CSR matrix in canonical format (sorted indices, no duplicates).

    Accepts any scipy sparse matrix or array, or a 2-D array-like (made sparse). The CSR input is
    returned as it is when already canonical; otherwise a copy is made.
    """
    if a is None or isinstance(a, (str, bytes, os.PathLike)):
        hint = ": read a file with spmv_reorder.mmread first" if a is not None else ""
        raise TypeError(f"{name} must be a scipy sparse matrix or a numeric 2-D array, "
                        f"not {type(a).__name__}{hint}")
    if sp.issparse(a):
        if len(a.shape) != 2:
            raise ValueError(f"{name} must be 2-D, got shape {a.shape}")
        csr = a.tocsr()
    else:
        dense = np.asarray(a)
        if dense.ndim != 2:
            raise ValueError(f"{name} must be a 2-D matrix, got an array of shape {dense.shape}")
        if dense.dtype == object:
            raise TypeError(f"{name} must be a scipy sparse matrix or a numeric 2-D array")
        csr = sp.csr_array(dense)
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    return csr


def structure(csr):
    """The tuple ``(indptr, indices, nrows, ncols)`` the native module takes."""
    nrows, ncols = csr.shape
    return (
        np.ascontiguousarray(csr.indptr),
        np.ascontiguousarray(csr.indices),
        int(nrows),
        int(ncols),
    )


def from_arrays(indptr, indices, data, shape):
    """A ``csr_array`` over arrays the native module made (canonical, so flagged as such)."""
    if data is None:
        data = np.ones(len(indices), dtype=np.float64)
    a = sp.csr_array((data, indices, indptr), shape=shape)
    a.has_canonical_format = True
    return a


def integer(name, value, minimum=0, maximum=2**63 - 1):
    """``value`` as a Python int in ``[minimum, maximum]``, or ``None`` for ``None``."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {value!r}") from None
    if not minimum <= v <= maximum:
        raise ValueError(f"{name} must be in [{minimum}, {maximum}], got {v}")
    return v


def threads(value):
    """``value`` as a thread count from 1 to the CPUs this process may use (as the command line
    bounds ``--threads``), or ``None`` for ``None``."""
    v = integer("threads", value, minimum=1)
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # no CPU affinity on this platform
        cpus = os.cpu_count() or 1
    if v is not None and v > cpus:
        raise ValueError(f"threads must be in [1, {cpus}] (the CPUs this process may use), "
                         f"got {v}")
    return v


def seconds(name, value):
    """``value`` as a positive finite float, or ``None`` for ``None``."""
    if value is None:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number of seconds, got {value!r}") from None
    if not (np.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    return v


def text(name, value):
    """``value`` as a string, or ``None`` for ``None``."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {value!r}")
    return value


def count_or_text(name, value):
    """``value`` as a string: text as it is, an integer (Python's or numpy's, not a bool) as its
    digits, ``None`` for ``None``: the options that take a count or a word (``window=64``,
    ``window="var"``)."""
    if value is None or isinstance(value, str):
        return value
    try:
        return str(integer(name, value))
    except TypeError:
        raise TypeError(f"{name} must be an integer or a string, got {value!r}") from None


def permutation(name, perm, n):
    """``perm`` as a contiguous ``int64`` array of ``n`` indices (the native side checks that it
    is a permutation)."""
    p = np.asarray(perm)
    if p.ndim != 1 or not (np.issubdtype(p.dtype, np.integer) or p.size == 0):
        raise TypeError(f"{name} must be a 1-D array of integers")
    if len(p) != n:
        raise ValueError(f"{name} has {len(p)} entries, the matrix has {n} rows")
    return np.ascontiguousarray(p, dtype=np.int64)


def values(csr, field):
    """The values of ``csr`` in the dtype of Matrix Market ``field`` (``None`` for a pattern)."""
    kind = csr.dtype.kind
    if field == "pattern":
        return None
    if field == "real":
        if kind == "c":
            raise ValueError("a complex matrix cannot be written with field 'real'")
        return np.ascontiguousarray(csr.data, dtype=np.float64)
    if field == "integer":
        if kind not in "biu":
            raise ValueError(f"a matrix of dtype {csr.dtype} cannot be written with field 'integer'")
        data = csr.data
        if kind == "u" and data.size and data.max() > np.iinfo(np.int64).max:
            raise ValueError("an unsigned value is too large for field 'integer' (64-bit signed)")
        return np.ascontiguousarray(data, dtype=np.int64)
    if field == "complex":
        return np.ascontiguousarray(csr.data, dtype=np.complex128)
    raise ValueError(f"invalid field {field!r}: expected real, integer, complex or pattern")


def field_of(dtype):
    """The Matrix Market field that holds ``dtype`` exactly."""
    dtype = np.dtype(dtype)
    kind = dtype.kind
    if kind in "biu":
        return "integer"
    # A file's reals are doubles: a long double would lose its extra digits without a word.
    if kind in "fc" and dtype.itemsize > (8 if kind == "f" else 16):
        raise TypeError(f"a matrix of dtype {dtype} holds more than a double per number; pass "
                        f"field='{'real' if kind == 'f' else 'complex'}' to write it rounded "
                        f"to doubles")
    if kind == "f":
        return "real"
    if kind == "c":
        return "complex"
    raise TypeError(f"a matrix of dtype {dtype} cannot be written to Matrix Market")
