#!/usr/bin/env python3
"""Writes the binary fixture files of the tests: tests/data/binary/ and tests/data/invalid_binary/.

- `.npz` files are written by scipy.sparse.save_npz itself (CSR, CSC, COO; compressed and stored;
  int32 and int64 indices; float, integer, complex and bool values; unsorted rows with duplicates).
- `.petsc` files are written by `petsc_binary` below, which follows the layout of PETSc's manual
  page for MatLoad (and lib/petsc/bin/PetscBinaryIO.py): big-endian PetscInt class id 1211216,
  rows, columns, nonzeros, the nonzeros of each row, the column indices, the PetscScalar values;
  32- and 64-bit PetscInt, double, single and complex scalars, and a vector following the matrix.
- Each valid fixture has a twin `NAME.mtx` written by scipy.io.mmwrite from the same matrix
  (duplicates summed), which the Rust tests compare it with.
- tests/data/invalid_binary/KIND.WHAT.EXT is one broken file per failure mode; KIND is the
  `BinaryError::name()` the reader must report.

Run from the repository root in a venv with numpy and scipy:
    python3 -m venv venv && venv/bin/pip install numpy scipy
    venv/bin/python scripts/binary_fixtures.py
"""

import io
import os
import zipfile

import numpy as np
import scipy.io
import scipy.sparse as sp

VALID = "tests/data/binary"
INVALID = "tests/data/invalid_binary"

MAT_FILE_CLASSID = 1211216
VEC_FILE_CLASSID = 1211214


def base_matrix():
    """A 5 x 4 matrix with an empty row, an empty column and exactly representable values."""
    rows = [0, 0, 1, 3, 3, 3, 4]
    cols = [0, 3, 1, 0, 1, 3, 2]
    vals = [1.5, -2.25, 4.0, 0.5, 8.0, -1.0, 3.0]
    return sp.csr_matrix((vals, (rows, cols)), shape=(5, 4))


def petsc_binary(path, a, int_dtype=">i4", scalar_dtype=">f8", trailing_vector=False):
    """Writes CSR matrix `a` in PETSc's binary matrix layout."""
    a = sp.csr_matrix(a)
    with open(path, "wb") as f:
        np.array([MAT_FILE_CLASSID, a.shape[0], a.shape[1], a.nnz], dtype=int_dtype).tofile(f)
        np.diff(a.indptr).astype(int_dtype).tofile(f)
        a.indices.astype(int_dtype).tofile(f)
        a.data.astype(scalar_dtype).tofile(f)
        if trailing_vector:
            np.array([VEC_FILE_CLASSID, 3], dtype=int_dtype).tofile(f)
            np.arange(3, dtype=scalar_dtype).tofile(f)


def twin(name, a):
    scipy.io.mmwrite(os.path.join(VALID, name + ".mtx"), sp.coo_matrix(a))


def valid_npz():
    a = base_matrix()
    cases = {
        "csr_f8": (a, True),
        "csr_f8_stored": (a, False),
        "csc_i8_values": (sp.csc_matrix(a * 4).astype(np.int64), True),
        "coo_c16": (sp.coo_matrix(a * (1 + 2j)), True),
        "csr_bool": (a.astype(bool), True),
        "csr_f4": (a.astype(np.float32), True),
    }
    for name, (m, compressed) in cases.items():
        sp.save_npz(os.path.join(VALID, name + ".npz"), m, compressed=compressed)
        twin(name, m)
    wide = sp.csr_matrix(a)
    wide.indices = wide.indices.astype(np.int64)
    wide.indptr = wide.indptr.astype(np.int64)
    sp.save_npz(os.path.join(VALID, "csr_i8_indices.npz"), wide)
    twin("csr_i8_indices", wide)
    # Unsorted rows and a duplicate (0, 3) that must be summed, as scipy's sum_duplicates does.
    messy = sp.csr_matrix(
        (np.array([-2.25, 1.5, 1.0, 4.0]), np.array([3, 0, 3, 1]), np.array([0, 3, 4, 4, 4, 4])),
        shape=(5, 4),
    )
    sp.save_npz(os.path.join(VALID, "csr_unsorted_duplicates.npz"), messy)
    clean = messy.copy()
    clean.sum_duplicates()
    twin("csr_unsorted_duplicates", clean)


def valid_petsc():
    a = base_matrix()
    petsc_binary(os.path.join(VALID, "aij_i4_f8.petsc"), a)
    twin("aij_i4_f8", a)
    petsc_binary(os.path.join(VALID, "aij_i8_f8.petsc"), a, int_dtype=">i8")
    twin("aij_i8_f8", a)
    petsc_binary(os.path.join(VALID, "aij_i4_f4.petsc"), a, scalar_dtype=">f4")
    twin("aij_i4_f4", a)
    c = a * (1 - 1j)
    petsc_binary(os.path.join(VALID, "aij_i4_c16.petsc"), c, scalar_dtype=">c16")
    twin("aij_i4_c16", c)
    petsc_binary(os.path.join(VALID, "aij_with_vector.petsc"), a, trailing_vector=True)
    twin("aij_with_vector", a)


def npz_bytes(arrays, compressed=True):
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    return buf.getvalue()


def invalid_npz():
    a = base_matrix()
    good = dict(indices=a.indices, indptr=a.indptr, format=b"csr", shape=a.shape, data=a.data)

    def write(name, arrays):
        with open(os.path.join(INVALID, name + ".npz"), "wb") as f:
            f.write(npz_bytes(arrays))

    write("missing_array.no_indptr", {k: v for k, v in good.items() if k != "indptr"})
    write("index_out_of_range.column", {**good, "indices": np.array([0, 3, 1, 0, 1, 4, 2], np.int32)})
    write("index_out_of_range.negative", {**good, "indices": np.array([0, -1, 1, 0, 1, 3, 2], np.int32)})
    write("not_monotone.indptr", {**good, "indptr": np.array([0, 2, 1, 3, 6, 7], np.int32)})
    write("wrong_length.indptr", {**good, "indptr": np.array([0, 2, 3, 3, 6], np.int32)})
    write("wrong_length.data_short", {**good, "data": a.data[:-1]})
    write("unsupported_layout.bsr", {**good, "format": b"bsr"})
    write("unsupported_dtype.string_data", {**good, "data": np.array(["a"] * 7)})
    write("bad_size.negative_shape", {**good, "shape": np.array([-5, 4])})
    # Two entries at (0, 0) whose sum does not fit 64 bits.
    big = np.iinfo(np.int64).max
    write("integer_overflow.duplicates", dict(indices=np.array([0, 0], np.int32),
          indptr=np.array([0, 2, 2, 2, 2, 2], np.int32), format=b"csr", shape=a.shape,
          data=np.array([big, 1], np.int64)))
    with open(os.path.join(INVALID, "zip.not_a_zip.npz"), "wb") as f:
        f.write(b"this is not a zip archive\n" * 4)
    raw = npz_bytes(good, compressed=False)
    with open(os.path.join(INVALID, "zip.truncated.npz"), "wb") as f:
        f.write(raw[: len(raw) // 2])
    # A member that is not an .npy array.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k, v in good.items():
            if k == "data":
                z.writestr("data.npy", b"not an npy array")
            else:
                b = io.BytesIO()
                np.save(b, np.asarray(v))
                z.writestr(k + ".npy", b.getvalue())
    with open(os.path.join(INVALID, "bad_npy.data.npz"), "wb") as f:
        f.write(buf.getvalue())


def invalid_petsc():
    a = base_matrix()
    path = os.path.join(INVALID, "x.petsc")
    petsc_binary(path, a)
    good = open(path, "rb").read()
    os.remove(path)
    i4 = lambda *v: np.array(v, ">i4").tobytes()  # noqa: E731

    def write(name, data):
        with open(os.path.join(INVALID, name + ".petsc"), "wb") as f:
            f.write(data)

    write("not_a_petsc_matrix.vector", i4(VEC_FILE_CLASSID, 3) + np.arange(3, dtype=">f8").tobytes())
    write("unknown_scalar.truncated_values", good[:-4 * 8])
    write("truncated.column_indices", good[: 16 + 4 * 5 + 8])
    write("truncated.header", good[:10])
    write("dense_layout.minus_one", i4(MAT_FILE_CLASSID, 2, 2, -1) + np.ones(4, ">f8").tobytes())
    write("bad_size.negative_rows", i4(MAT_FILE_CLASSID, -5, 4, 7) + good[16:])
    # The column index 3 of row 0 becomes 4 (outside 0..4).
    cols_at = 16 + 4 * 5
    bad = bytearray(good)
    bad[cols_at + 4 : cols_at + 8] = i4(4)
    write("index_out_of_range.column", bytes(bad))
    # Row lengths that add up to more than the nonzeros.
    bad = bytearray(good)
    bad[16:20] = i4(5)
    write("index_out_of_range.row_lengths", bytes(bad))
    # Row lengths that add up to fewer.
    bad = bytearray(good)
    bad[16:20] = i4(1)
    write("wrong_length.row_lengths", bytes(bad))
    write("unknown_scalar.odd_tail", good + b"\x01\x02\x03")


def main():
    os.makedirs(VALID, exist_ok=True)
    os.makedirs(INVALID, exist_ok=True)
    valid_npz()
    valid_petsc()
    invalid_npz()
    invalid_petsc()


if __name__ == "__main__":
    main()
