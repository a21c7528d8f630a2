"""mmread and mmwrite: against scipy.io.mmread on every bundled matrix, round trips of every
field and symmetry, and errors naming the file and line."""

import gzip
import inspect
import re

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import spmv_reorder as sr
from conftest import INVALID, bundled


def scipy_mmread(path):
    """``scipy.io.mmread`` as a CSR array (asking for a sparse array where scipy can return one:
    its default return type is changing)."""
    sparse_array = "spmatrix" in inspect.signature(scipy.io.mmread).parameters
    a = scipy.io.mmread(path, spmatrix=False) if sparse_array else scipy.io.mmread(path)
    return sp.csr_array(a)


@pytest.mark.parametrize("path", bundled(), ids=lambda p: p.name.split(".")[0])
def test_mmread_agrees_with_scipy(path):
    ours = sr.mmread(path)
    theirs = scipy_mmread(path)
    assert type(ours) is sp.csr_array
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert ours.has_canonical_format
    theirs.sum_duplicates()
    # Same stored entries (scipy keeps explicit zeros of the file as we do) and same values.
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    np.testing.assert_array_equal(ours.data, theirs.data)


def random_matrix(dtype, n=40, m=40, seed=0):
    rng = np.random.default_rng(seed)
    a = sp.random_array((n, m), density=0.2, random_state=seed, format="csr")
    if np.dtype(dtype).kind == "c":
        a = a + 1j * sp.random_array((n, m), density=0.2, random_state=seed + 1, format="csr")
    elif np.dtype(dtype).kind in "iu":
        a.data = rng.integers(1, 1000, a.nnz).astype(np.float64)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype, field, read_dtype", [
    (np.float64, "real", np.float64),
    (np.float32, "real", np.float64),
    (np.int32, "integer", np.int64),
    (np.uint16, "integer", np.int64),
    (np.complex128, "complex", np.complex128),
    (np.bool_, "integer", np.int64),
])
def test_round_trip_keeps_every_value(tmp_path, dtype, field, read_dtype):
    a = random_matrix(dtype)
    path = tmp_path / "a.mtx"
    sr.mmwrite(path, a, comment="written by a test\nsecond line")
    text = path.read_text()
    assert text.startswith(f"%%MatrixMarket matrix coordinate {field} general\n")
    assert "%written by a test\n%second line\n" in text
    b = sr.mmread(path)
    assert b.dtype == read_dtype
    np.testing.assert_array_equal(b.toarray(), a.toarray().astype(read_dtype))
    np.testing.assert_array_equal(scipy_mmread(path).toarray(), b.toarray())


def test_long_double_is_not_rounded_without_being_asked(tmp_path):
    a = sp.csr_array(np.array([[1.0, 0.0], [0.0, 2.0]], dtype=np.longdouble))
    if a.dtype.itemsize <= 8:
        pytest.skip("long double is a double on this platform")
    with pytest.raises(TypeError, match="field='real'"):
        sr.mmwrite(tmp_path / "l.mtx", a)
    assert not (tmp_path / "l.mtx").exists()
    sr.mmwrite(tmp_path / "l.mtx", a, field="real")
    np.testing.assert_array_equal(sr.mmread(tmp_path / "l.mtx").toarray(), [[1.0, 0.0], [0.0, 2.0]])


def test_pattern_gzip_and_symmetric_storage(tmp_path):
    a = random_matrix(np.float64, seed=3)
    s = a + a.T
    sr.mmwrite(tmp_path / "s.mtx.gz", s, symmetry="symmetric")
    with gzip.open(tmp_path / "s.mtx.gz", "rt") as f:
        lines = f.read().splitlines()
    assert lines[0] == "%%MatrixMarket matrix coordinate real symmetric"
    assert int(lines[1].split()[2]) == sp.tril(s).nnz
    assert (sr.mmread(tmp_path / "s.mtx.gz") != s).nnz == 0
    sr.mmwrite(tmp_path / "p.mtx", a, field="pattern")
    p = sr.mmread(tmp_path / "p.mtx")
    assert p.dtype == np.float64 and np.all(p.data == 1)
    assert (abs(p) > 0).nnz == a.nnz and ((p != 0) != (a != 0)).nnz == 0


def test_write_errors(tmp_path):
    a = random_matrix(np.float64, n=10, m=12, seed=5)
    target = tmp_path / "out.mtx"
    with pytest.raises(ValueError, match="symmetric"):
        sr.mmwrite(target, a, symmetry="symmetric")
    with pytest.raises(ValueError, match="not symmetric"):
        sr.mmwrite(target, a[:, :10], symmetry="symmetric")
    with pytest.raises(ValueError, match="symmetry"):
        sr.mmwrite(target, a, symmetry="diagonal")
    with pytest.raises(ValueError, match="field"):
        sr.mmwrite(target, a, field="quaternion")
    with pytest.raises(ValueError, match="integer"):
        sr.mmwrite(target, a, field="integer")
    with pytest.raises(OSError):
        sr.mmwrite(tmp_path / "missing" / "out.mtx", a)
    assert not target.exists(), "a refused write leaves no file"
    assert list(tmp_path.iterdir()) == [], "nor a temporary file"


def invalid_files():
    # Each file is named NAME.LINE[.what].mtx: LINE is where the reader must report the problem.
    return sorted(p for p in INVALID.iterdir() if re.match(r"^[a-z_0-9]+\.\d+\.", p.name))


@pytest.mark.parametrize("path", invalid_files(), ids=lambda p: p.name)
def test_invalid_files_name_their_line(path):
    line = int(path.name.split(".")[1])
    with pytest.raises(ValueError) as e:
        sr.mmread(path)
    assert f"{path}:{line}:" in str(e.value)


def test_missing_file():
    with pytest.raises(FileNotFoundError, match="no-such.mtx"):
        sr.mmread("no-such.mtx")
