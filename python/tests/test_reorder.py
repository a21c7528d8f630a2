"""reorder, Reorderer and Reordering: the permutation law against scipy, every method, dtypes,
formats, edge sizes, bad input, options passed through, Ctrl-C and the GIL."""

import _thread
import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

import spmv_reorder as sr
from conftest import bundled, grid

METHODS = ["tsp", "rcm", "gorder", "degree", "identity", "random"]


def assert_is_permutation(p, n):
    assert p.dtype == np.int64 and p.shape == (n,)
    assert np.array_equal(np.sort(p), np.arange(n))


def assert_law(a, p, q=None):
    """(A[p][:, q]) @ x[q] == (A @ x)[p]: the reordered product is the permuted product."""
    q = p if q is None else q
    x = np.random.default_rng(1).standard_normal(a.shape[1])
    b = sp.csr_array(a)[p][:, q]
    np.testing.assert_allclose(b @ x[q], (a @ x)[p], rtol=1e-12, atol=1e-12)


@pytest.fixture(scope="module")
def shuffled():
    return grid(20, shuffle_seed=3)


@pytest.mark.parametrize("method", METHODS)
def test_every_method_gives_a_permutation_that_keeps_the_product(shuffled, method):
    p = sr.reorder(shuffled, method=method)
    assert_is_permutation(p, shuffled.shape[0])
    assert_law(shuffled, p)


@pytest.mark.parametrize("sampler", ["random:0.5", "dast-sim"])
def test_samplers_give_permutations(shuffled, sampler):
    p = sr.reorder(shuffled, sampler=sampler, seed=7)
    assert_is_permutation(p, shuffled.shape[0])
    assert_law(shuffled, p)


def test_the_default_lowers_d_on_a_shuffled_grid(shuffled):
    r = sr.Reorderer().run(shuffled)
    assert r.report["D_after"] < r.report["D_before"]
    assert r.report["permute"] == "symmetric" and r.col_perm is r.perm
    b = r.apply(shuffled)
    assert type(b) is sp.csr_array and b.has_sorted_indices
    assert (b != shuffled[r.perm][:, r.perm]).nnz == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.complex128,
                                   np.bool_])
def test_dtypes_give_the_order_of_the_structure(shuffled, dtype):
    expected = sr.reorder(shuffled, threads=1)
    a = shuffled.astype(dtype)
    p = sr.reorder(a, threads=1)
    np.testing.assert_array_equal(p, expected)
    b = sr.Reorderer(threads=1).run(a).apply(a)
    assert b.dtype == np.dtype(dtype)
    assert (b != a[p][:, p]).nnz == 0


@pytest.mark.parametrize("fmt", ["coo", "csc", "lil", "dok", "bsr"])
def test_formats_give_the_order_of_csr(shuffled, fmt):
    expected = sr.reorder(shuffled, threads=1)
    np.testing.assert_array_equal(sr.reorder(shuffled.asformat(fmt), threads=1), expected)


def test_matrix_classes_and_dense_input(shuffled):
    expected = sr.reorder(shuffled, threads=1)
    np.testing.assert_array_equal(sr.reorder(sp.csr_matrix(shuffled), threads=1), expected)
    np.testing.assert_array_equal(sr.reorder(shuffled.toarray(), threads=1), expected)
    b = sr.Reorderer(threads=1).run(shuffled).apply(sp.csr_matrix(shuffled))
    assert isinstance(b, sp.csr_matrix)


def test_int64_indices_and_unsorted_duplicates(shuffled):
    expected = sr.reorder(shuffled, threads=1)
    wide = shuffled.copy()
    wide.indptr = wide.indptr.astype(np.int64)
    wide.indices = wide.indices.astype(np.int64)
    np.testing.assert_array_equal(sr.reorder(wide, threads=1), expected)
    coo = shuffled.tocoo()
    order = np.random.default_rng(2).permutation(coo.nnz)
    rows = np.concatenate([coo.row[order], coo.row[:5]])
    cols = np.concatenate([coo.col[order], coo.col[:5]])
    vals = np.concatenate([coo.data[order], coo.data[:5]])
    messy = sp.csr_array((vals, (rows, cols)), shape=shuffled.shape)
    np.testing.assert_array_equal(sr.reorder(messy, threads=1), expected)


@pytest.mark.parametrize("n", [0, 1])
def test_empty_and_one_by_one(n):
    for a in [sp.csr_array((n, n)), sp.csr_array(np.ones((n, n)))]:
        for method in METHODS:
            p = sr.reorder(a, method=method)
            assert_is_permutation(p, n)


def test_rectangular_permutes_rows_only_by_default():
    a = sp.random_array((30, 50), density=0.1, random_state=4, format="csr")
    r = sr.Reorderer().run(a)
    assert r.report["permute"] == "rows"
    np.testing.assert_array_equal(r.col_perm, np.arange(50))
    assert_law(a, r.perm, r.col_perm)
    both = sr.Reorderer(permute="both").run(a)
    assert_is_permutation(both.col_perm, 50)
    assert_law(a, both.perm, both.col_perm)
    assert (both.apply(a) != a[both.perm][:, both.col_perm]).nnz == 0


def test_options_reach_the_library(shuffled):
    r = sr.Reorderer("tsp", window=4, seed=5, kicks=3, start="greedy", cache_check=False,
                     length_runs=0, neighbours=5, hub_limit=64, length_change_cost=0,
                     time_limit=10.0, threads=1).run(shuffled)
    rep = r.report
    assert (rep["method"], rep["window"], rep["seed"], rep["start"]) == ("tsp", "4", 5, "greedy")
    assert rep["length_runs"] is None
    assert rep["rows"]["tsp"]["kicks"] <= 3
    assert_law(shuffled, r.perm)
    assert sr.Reorderer(method="rcm").run(shuffled).report["method"] == "rcm"
    splits = sr.Reorderer(method="rcm", row_split_threads=4).run(shuffled).report["row_splits"]
    assert splits["threads"] == 4
    assert sr.Reorderer(row_split_threads=0).run(shuffled).report["row_splits"] is None


def test_a_vouched_symmetric_pattern_is_taken_as_read(shuffled):
    # A symmetric pattern vouched for is ordered as one checked.
    for method in ("auto", "rcm"):
        vouched = sr.Reorderer(method, symmetric_pattern=True).run(shuffled).perm
        np.testing.assert_array_equal(vouched, sr.Reorderer(method).run(shuffled).perm)
    # An unsymmetric one is not checked, so RCM follows its one-way edges as they are: another
    # order, still a permutation.
    a = sp.random_array((300, 300), density=0.01, random_state=7, format="csr")
    checked = sr.Reorderer("rcm").run(a).perm
    vouched = sr.Reorderer("rcm", symmetric_pattern=True).run(a).perm
    assert_is_permutation(vouched, 300)
    assert_law(a, vouched)
    assert not np.array_equal(vouched, checked)


def test_rcm_starts_where_it_is_told():
    # A 12 x 12 grid with one more node hung from its centre: that node has the least degree,
    # and RCM from it differs from RCM from a pseudo-peripheral node (a corner).
    grid = sp.kron(sp.eye(12), sp.diags([1.0, 1.0, 1.0], [-1, 0, 1], shape=(12, 12)))
    grid = grid + sp.kron(sp.diags([1.0, 1.0], [-1, 1], shape=(12, 12)), sp.eye(12))
    a = sp.lil_array(sp.block_diag([grid, sp.eye(1)]))
    a[144, 78] = a[78, 144] = 1
    a = sp.csr_array(a)
    orders = {}
    for start in ("min-degree", "peripheral"):
        orders[start] = sr.Reorderer("rcm", rcm_start=start).run(a).perm
        assert_is_permutation(orders[start], 145)
        assert_law(a, orders[start])
    # The default start is the node of least degree; RCM numbers it last.
    np.testing.assert_array_equal(sr.Reorderer("rcm").run(a).perm, orders["min-degree"])
    assert orders["min-degree"][-1] == 144
    assert orders["peripheral"][-1] != 144


@pytest.mark.parametrize("kwargs, error", [
    ({"method": "bogus"}, ValueError),
    ({"window": "0"}, ValueError),
    ({"permute": "diagonal"}, ValueError),
    ({"sampler": "random:2"}, ValueError),
    ({"start": "middle"}, ValueError),
    ({"length_runs": "sometimes"}, ValueError),
    ({"rcm_start": "centre"}, ValueError),
    ({"window": 2.5}, TypeError),
    ({"window": True}, TypeError),
    ({"length_runs": -1}, ValueError),
    ({"length_runs": np.float64(8)}, TypeError),
    ({"rcm_start": 1}, TypeError),
    ({"seed": -1}, ValueError),
    ({"seed": 2**64}, ValueError),
    ({"threads": 0}, ValueError),
    ({"threads": len(os.sched_getaffinity(0)) + 1}, ValueError),
    ({"time_limit": 0}, ValueError),
    ({"time_limit": float("nan")}, ValueError),
    ({"kicks": 1.5}, TypeError),
    ({"method": 3}, TypeError),
    ({"cache_check": "no"}, TypeError),
    ({"symmetric_pattern": 1}, TypeError),
])
def test_bad_options_raise(shuffled, kwargs, error):
    with pytest.raises(error):
        sr.reorder(shuffled, **kwargs)


def test_counts_may_be_numpy_integers(shuffled):
    as_python = sr.Reorderer("tsp", window=4, length_runs=16).run(shuffled).perm
    as_numpy = sr.Reorderer("tsp", window=np.int64(4), length_runs=np.uint16(16)).run(shuffled)
    np.testing.assert_array_equal(as_numpy.perm, as_python)
    assert as_numpy.report["length_runs"]["block"] == 16


def test_bad_matrices_raise():
    with pytest.raises(ValueError, match="symmetric") as err:
        sr.reorder(sp.random_array((3, 4), density=0.5, random_state=0), permute="symmetric")
    assert "--" not in str(err.value), "a command-line option named to a Python caller"
    with pytest.raises(ValueError):
        sr.reorder(np.ones(5))
    with pytest.raises(TypeError):
        sr.reorder(np.array([[object()]]))
    for not_a_matrix, hint in (("matrix.mtx", "mmread"), (None, "NoneType")):
        with pytest.raises(TypeError, match=hint):
            sr.reorder(not_a_matrix)
    # One permutation cannot hold a column order of its own.
    for permute in ("cols", "both"):
        with pytest.raises(ValueError, match="col_perm"):
            sr.reorder(sp.csr_array(np.eye(3)), method="rcm", permute=permute)
    bad = sp.csr_array(np.eye(3))
    bad.indices[1] = -1
    with pytest.raises(ValueError, match="indices"):
        sr.reorder(bad)
    with pytest.raises(ValueError, match="2 x 2"):
        sr.Reorderer().run(sp.csr_array(np.eye(2))).apply(sp.csr_array(np.eye(3)))


def test_same_permutation_as_the_command_line(cli, tmp_path):
    path = bundled(["bcsstk13"])[0]
    perm_file = tmp_path / "perm.txt"
    subprocess.run([cli, str(path), "--perm-out", str(perm_file), "--threads", "1", "--quiet"],
                   check=True)
    from_cli = np.loadtxt(perm_file, comments="%", dtype=np.int64) - 1
    np.testing.assert_array_equal(sr.reorder(sr.mmread(path), threads=1), from_cli)


def long_reorder():
    """A reordering that would run for hours: Chained Lin-Kernighan without end, but for a time
    limit that turns an interrupt lost into a failure rather than a hang."""
    return sr.Reorderer(method="tsp", cache_check=False, kicks=2**62, time_limit=90.0)


@pytest.fixture
def sigint_raises():
    """SIGINT raises KeyboardInterrupt during the test. A process started with SIGINT ignored (a
    shell's background job, nohup) inherits that, and Python then installs no handler of its
    own: `_thread.interrupt_main` does nothing there."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_interrupts_a_long_reorder(sigint_raises):
    a = grid(120, shuffle_seed=5)
    timer = threading.Timer(1.0, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            long_reorder().run(a)
    finally:
        timer.cancel()
    # Not a speed target: a generous bound that tells an interrupted run from a finished one.
    assert time.monotonic() - start < 60
    assert_is_permutation(sr.reorder(a), a.shape[0])


def test_the_gil_is_released_while_ordering():
    a = grid(120, shuffle_seed=6)
    counts = []
    done = threading.Event()

    def count():
        while not done.is_set():
            counts.append(time.monotonic())
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        start = time.monotonic()
        sr.Reorderer(method="tsp", cache_check=False, time_limit=1.0, kicks=2**62).run(a)
        end = time.monotonic()
    finally:
        done.set()
        counter.join()
    during = [t for t in counts if start < t < end]
    # Holding the GIL, the counter could not run at all while the call lasted (over a second).
    assert end - start > 0.5 and len(during) > 10


def test_part_rows_sets_the_parts_of_the_partition_order(shuffled, cli, tmp_path):
    small = sr.reorder(shuffled, method="gp", part_rows=16)
    assert not np.array_equal(small, sr.reorder(shuffled, method="gp"))
    path = tmp_path / "a.mtx"
    sr.mmwrite(path, shuffled)
    perm_file = tmp_path / "p.txt"
    subprocess.run([cli, str(path), "--method", "gp", "--part-rows", "16", "--perm-out",
                    str(perm_file), "--perm-base", "0", "--quiet"], check=True)
    np.testing.assert_array_equal(small, np.loadtxt(perm_file, comments="%", dtype=np.int64))
    with pytest.raises(ValueError):
        sr.reorder(shuffled, method="gp", part_rows=0)
