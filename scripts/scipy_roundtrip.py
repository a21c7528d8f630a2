#!/usr/bin/env python3
"""Round trips of the binary matrix formats against scipy, run by scripts/test.sh.

For random matrices of every value type (float64, int64, complex128, bool), in every layout scipy
saves (CSR, CSC, COO; compressed and stored; int32 and int64 indices; unsorted rows with
duplicates), scipy.sparse.save_npz writes the file; `spmv-reorder IN -o OUT --method identity`
converts it to `.mtx`, `.npz` and `.petsc`; scipy reads the results back (scipy.io.mmread,
scipy.sparse.load_npz, and `read_petsc` below, which follows PETSc's documented MatLoad layout)
and every value is compared with the original. PETSc holds doubles: integers and bools come back
as reals. Also the other way: files written in PETSc's layout by `write_petsc` below are
converted to `.npz` and read by scipy.

Usage: python3 scripts/scipy_roundtrip.py target/release/spmv-reorder
Prints one line per failure and closes with `roundtrips: N passed, N failed`.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.io
import scipy.sparse as sp

MAT_FILE_CLASSID = 1211216


def read_petsc(path):
    """Reads a PETSc binary matrix with 32-bit PetscInt and double or complex scalars."""
    raw = open(path, "rb").read()
    header = np.frombuffer(raw, ">i4", 4)
    assert header[0] == MAT_FILE_CLASSID, header
    m, n, nnz = (int(v) for v in header[1:])
    at = 16
    lengths = np.frombuffer(raw, ">i4", m, at)
    at += 4 * m
    cols = np.frombuffer(raw, ">i4", nnz, at)
    at += 4 * nnz
    scalar = ">f8" if len(raw) - at == 8 * nnz else ">c16"
    vals = np.frombuffer(raw, scalar, nnz, at)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    return sp.csr_matrix((vals, cols, indptr), shape=(m, n))


def write_petsc(path, a):
    a = sp.csr_matrix(a)
    with open(path, "wb") as f:
        np.array([MAT_FILE_CLASSID, *a.shape, a.nnz], ">i4").tofile(f)
        np.diff(a.indptr).astype(">i4").tofile(f)
        a.indices.astype(">i4").tofile(f)
        a.data.astype(">f8").tofile(f)


def random_matrix(rng, m, n, density, dtype):
    a = sp.random(m, n, density=density, format="csr", random_state=rng, dtype=np.float64)
    if dtype == np.int64:
        a.data = rng.integers(-(2**40), 2**40, a.nnz)
    elif dtype == np.complex128:
        a = a.astype(np.complex128)
        a.data = a.data + 1j * rng.standard_normal(a.nnz)
    elif dtype == bool:
        a = a.astype(bool)
    return a


def layouts(a):
    """(name, matrix as scipy saves it, compressed) for every layout."""
    wide = a.copy()
    wide.indices = wide.indices.astype(np.int64)
    wide.indptr = wide.indptr.astype(np.int64)
    yield "csr", a, True
    yield "csr-stored", a, False
    yield "csr-int64", wide, True
    yield "csc", a.tocsc(), True
    yield "coo", a.tocoo(), False
    if a.nnz > 1:
        # The rows reversed within themselves, and the first entry repeated: unsorted, duplicated.
        coo = a.tocoo()
        rows = np.concatenate([coo.row[::-1], coo.row[:1]])
        cols = np.concatenate([coo.col[::-1], coo.col[:1]])
        vals = np.concatenate([coo.data[::-1], coo.data[:1]])
        messy = sp.coo_matrix((vals, (rows, cols)), shape=a.shape).tocsr()
        messy.has_sorted_indices = False
        yield "csr-unsorted-duplicates", messy, True


def same(expected, got, as_real):
    e = sp.csr_matrix(expected)
    e.sum_duplicates()
    g = sp.csr_matrix(got)
    if e.shape != g.shape:
        return f"shape {g.shape} != {e.shape}"
    if as_real:
        e = e.astype(np.float64)
        g = g.astype(np.float64)
    elif e.dtype == bool:
        g = g.astype(bool)
    diff = e != g
    if diff.nnz:
        return f"{diff.nnz} values differ"
    if (e.indptr != g.indptr).any() or (e.indices != g.indices).any():
        return "structure differs"
    return None


def convert(binary, src, dst):
    out = subprocess.run(
        [binary, src, "-o", dst, "--method", "identity", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    return None if out.returncode == 0 else out.stderr.strip()


def main():
    binary = os.path.abspath(sys.argv[1])
    rng = np.random.default_rng(7)
    passed, failed = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for dtype in (np.float64, np.int64, np.complex128, bool):
            for m, n, density in ((40, 30, 0.1), (7, 50, 0.3), (1, 1, 1.0), (60, 60, 0.0)):
                cases.append((dtype, random_matrix(rng, m, n, density, dtype)))
        for dtype, a in cases:
            for layout, saved, compressed in layouts(a):
                name = f"{np.dtype(dtype).name}-{a.shape[0]}x{a.shape[1]}-{layout}"
                src = os.path.join(tmp, name + ".npz")
                sp.save_npz(src, saved, compressed=compressed)
                readers = {
                    ".mtx": lambda p: scipy.io.mmread(p),
                    ".npz": sp.load_npz,
                    ".petsc": read_petsc,
                }
                for ext, reader in readers.items():
                    dst = os.path.join(tmp, name + ".out" + ext)
                    problem = convert(binary, src, dst)
                    if problem is None:
                        as_real = ext == ".petsc" and dtype != np.complex128
                        problem = same(saved, reader(dst), as_real)
                    if problem:
                        failed += 1
                        print(f"FAILED {name} -> {ext}: {problem}")
                    else:
                        passed += 1
        # PETSc-layout files to scipy.
        for m, n in ((30, 20), (1, 5)):
            a = random_matrix(rng, m, n, 0.2, np.float64)
            src = os.path.join(tmp, f"petsc-{m}x{n}.petsc")
            write_petsc(src, a)
            dst = os.path.join(tmp, f"petsc-{m}x{n}.npz")
            problem = convert(binary, src, dst) or same(a, sp.load_npz(dst), False)
            if problem:
                failed += 1
                print(f"FAILED petsc-{m}x{n}: {problem}")
            else:
                passed += 1
    print(f"roundtrips: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
