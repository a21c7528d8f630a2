"""spmv_bench: the figures of `spmv-reorder bench --json`, alone and before/after a
permutation."""

import json
import subprocess

import numpy as np
import pytest

import spmv_reorder as sr
from conftest import bundled

QUICK = {"reps": 2, "warmup": 1, "stream_mb": 0, "threads": 1, "pin": "none"}


def keys(value):
    """The nested keys of a JSON value (lists by their first element)."""
    if isinstance(value, dict):
        return {k: keys(v) for k, v in value.items()}
    if isinstance(value, list) and value:
        return [keys(value[0])]
    return None


@pytest.fixture(scope="module")
def matrix():
    return sr.mmread(bundled(["bcsstk13"])[0])


def test_same_figures_as_the_command_line(cli, matrix, tmp_path):
    path = bundled(["bcsstk13"])[0]
    perm = sr.reorder(matrix)
    perm_file = tmp_path / "perm.txt"
    np.savetxt(perm_file, perm + 1, fmt="%d")
    args = ["--reps", "2", "--warmup", "1", "--stream-mb", "0", "--threads", "1", "--pin", "none"]
    single = json.loads(subprocess.run([cli, "bench", str(path), "--json", *args], check=True,
                                       capture_output=True, text=True).stdout)
    both = json.loads(subprocess.run([cli, "bench", str(path), "--json", "--perm",
                                      str(perm_file), *args],
                                     check=True, capture_output=True, text=True).stdout)
    ours_single = sr.spmv_bench(matrix, **QUICK)
    ours_both = sr.spmv_bench(matrix, perm, **QUICK)
    assert keys(ours_single) == keys(single)
    assert keys(ours_both) == keys(both)
    assert ours_both["before"]["matrix"] == both["before"]["matrix"]


def test_a_reordering_result_is_accepted(matrix):
    r = sr.Reorderer().run(matrix)
    out = sr.spmv_bench(matrix, r, kernel="nnz-balanced", **QUICK)
    assert [k["kernel"] for k in out["kernels"]] == ["nnz-balanced"]
    assert out["speedup"] > 0


def test_bad_benchmark_input(matrix):
    with pytest.raises(ValueError, match="entries"):
        sr.spmv_bench(matrix, np.arange(5), **QUICK)
    with pytest.raises(ValueError, match="permutation"):
        sr.spmv_bench(matrix, np.zeros(matrix.shape[0], dtype=np.int64), **QUICK)
    with pytest.raises(ValueError):
        sr.spmv_bench(matrix, kernel="fastest", **QUICK)
    with pytest.raises(ValueError):
        sr.spmv_bench(matrix, **{**QUICK, "reps": 0})
    # The triad's arrays: the command line's ranges, and no abort of the interpreter beyond them.
    for stream_mb in (10**6 + 1, 2**62):
        with pytest.raises(ValueError, match="stream_mb"):
            sr.spmv_bench(matrix, **{**QUICK, "stream_mb": stream_mb})
    with pytest.raises(ValueError, match="stream_reps"):
        sr.spmv_bench(matrix, **{**QUICK, "stream_mb": 1, "stream_reps": 1001})
