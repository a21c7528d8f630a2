"""Shared fixtures: the repository's bundled matrices and invalid files, small generated
matrices, and the command-line binary when the test command built it."""

import os
import pathlib
import shutil

import numpy as np
import pytest
import scipy.sparse as sp

REPO = pathlib.Path(__file__).resolve().parents[2]
MATRICES = REPO / "matrices"
INVALID = REPO / "tests" / "data" / "invalid"


def bundled(names=None):
    """Paths of the bundled matrices (all, or those named)."""
    paths = sorted(MATRICES.glob("*.mtx.gz"))
    if names is not None:
        paths = [p for p in paths if p.name.split(".")[0] in names]
    return paths


def grid(n, shuffle_seed=None):
    """The 5-point Laplacian of an n x n grid, rows and columns shuffled when a seed is given."""
    t = sp.diags_array([-1.0, 2.0, -1.0], offsets=[-1, 0, 1], shape=(n, n))
    a = (sp.kron(t, sp.eye_array(n)) + sp.kron(sp.eye_array(n), t)).tocsr()
    if shuffle_seed is not None:
        q = np.random.default_rng(shuffle_seed).permutation(a.shape[0])
        a = a[q][:, q].tocsr()
        a.sort_indices()
    return a


@pytest.fixture
def cli():
    """The spmv-reorder binary named by SPMV_REORDER_BIN (scripts/test.sh sets it); tests that
    compare with the command line are skipped without it."""
    path = os.environ.get("SPMV_REORDER_BIN") or shutil.which("spmv-reorder")
    if not path:
        pytest.skip("no spmv-reorder binary (set SPMV_REORDER_BIN)")
    if not os.access(path, os.X_OK):
        pytest.fail(f"SPMV_REORDER_BIN={path} is not an executable")
    return path
