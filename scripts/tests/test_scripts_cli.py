"""The helper scripts' error paths, run as a user runs them: bad options and files end with one
line naming the problem and a non-zero exit, outputs never overwrite inputs, and tables label
their columns by what they hold. Each case is cheap (no valgrind, MKL or timing run)."""

import json
import os
import stat
import subprocess
import sys

import pytest

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(SCRIPTS)
MATRIX = os.path.join(ROOT, "matrices", "west2021.mtx.gz")
USER_SCRIPTS = ["cache_misses.py", "compare_fmm.py", "compare_rcm.py", "eval_summary.py",
                "mkl_eval.py", "python_vs_rcm.py", "reorder_cost.py", "scale.py",
                "tsp_quality.py"]


def run(script, *args, env=None):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *map(str, args)],
                          capture_output=True, text=True, timeout=30,
                          env={**os.environ, **(env or {})})


def refused(r, *words):
    """`r` ended with a non-zero exit, no traceback, and a message holding every one of `words`."""
    assert r.returncode != 0, r.stdout
    assert "Traceback" not in r.stderr, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


def fake_binary(tmp_path, body):
    """An executable shell script standing in for spmv-reorder."""
    path = tmp_path / "fake-spmv-reorder"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize("script", USER_SCRIPTS)
def test_help_exits_zero_and_documents_every_option(script):
    r = run(script, "--help")
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout
    # argparse prints an option's help after its name on the same line, or, for a long name,
    # indented on the next; an option without help= has neither.
    lines = r.stdout.split("options:")[1].splitlines() + [""]
    for line, after in zip(lines, lines[1:]):
        words = line.split()
        if words and words[0].startswith("--") and len(words) <= 2 and not line.endswith(","):
            if not (after.startswith(" " * 20) and after.strip()):
                pytest.fail(f"{script}: option without help text: {line.strip()}")


@pytest.mark.parametrize("script,option", [("mkl_eval.py", "--reps"), ("reorder_cost.py", "--reps"),
                                           ("compare_fmm.py", "--reps"),
                                           ("cache_misses.py", "--products"),
                                           ("mkl_eval.py", "--threads")])
def test_zero_counts_are_refused_at_parse_time(script, option):
    refused(run(script, option, "0", MATRIX), f"argument {option}", "at least 1")


def evaluate_json(tmp_path, threads, labels=("identity", "rcm", "tsp")):
    """A two-matrix `evaluate --json` file timed at `threads`; ordering k's speedup at thread
    count t is t + k/10, so that a column's figures tell which count they came from."""
    def result(k, label):
        return {"label": label, "D": 100 - 10 * k, "reorder_spmv_equivalents": 5,
                "speedup": [t + k / 10 for t in threads],
                "speedup_over_rcm": [1.0 for _ in threads] if "rcm" in labels else None}
    matrices = [{"name": f"m{i}", "threads": list(threads),
                 "results": [result(k, label) for k, label in enumerate(labels)]}
                for i in range(2)]
    path = tmp_path / "eval.json"
    path.write_text(json.dumps({"matrices": matrices, "summary": {}}))
    return path


def table(stdout):
    lines = [line for line in stdout.splitlines() if line.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return head, {r[0]: dict(zip(head, r)) for r in
                  ([c.strip() for c in line.strip("|").split("|")] for line in lines[2:])}


def test_eval_summary_labels_columns_by_the_files_thread_counts(tmp_path):
    r = run("eval_summary.py", evaluate_json(tmp_path, [2, 1]))
    assert r.returncode == 0, r.stderr
    head, rows = table(r.stdout)
    assert head[2:6] == ["speedup 1t", "speedup 2t", "vs RCM 1t", "vs RCM 2t"]
    assert rows["rcm"]["speedup 1t"] == "1.100" and rows["rcm"]["speedup 2t"] == "2.100"
    assert rows["tsp"]["`D` below RCM and Gorder"] == "2 / 2"


def test_eval_summary_one_thread_and_no_rcm_print_no_nan(tmp_path):
    r = run("eval_summary.py", evaluate_json(tmp_path, [1], labels=("identity", "gorder", "tsp")))
    assert r.returncode == 0, r.stderr
    head, rows = table(r.stdout)
    assert "speedup 1t" in head and "speedup 2t" not in head
    assert rows["gorder"]["vs RCM 1t"] == "-" and rows["tsp"]["`D` below RCM and Gorder"] == "-"
    assert "no `rcm` ordering" in r.stdout
    assert "nan" not in r.stdout.lower() and "inf" not in r.stdout.lower()


def test_eval_summary_refuses_a_file_that_is_not_json(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("# not JSON\n")
    refused(run("eval_summary.py", path), str(path), "not JSON")


def test_cache_misses_refuses_json_onto_an_input_before_running(tmp_path):
    matrix = tmp_path / "in.mtx"
    matrix.write_text("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1.0\n")
    before = matrix.read_bytes()
    marker = tmp_path / "ran"
    binary = fake_binary(tmp_path, f"touch {marker}")
    r = run("cache_misses.py", "--json", matrix, matrix, env={"SPMV_REORDER_BIN": str(binary)})
    refused(r, "--json", "refusing to overwrite")
    assert matrix.read_bytes() == before
    assert not marker.exists(), "the binary ran before the output was checked"


def test_a_failing_binary_is_one_line_naming_the_file(tmp_path):
    binary = fake_binary(tmp_path, "echo 'spmv-reorder: error: it broke' >&2; exit 3")
    r = run("reorder_cost.py", "--reps", "1", "--binary", binary, MATRIX)
    refused(r, "it broke", f"spmv-reorder failed on {MATRIX} (exit 3)")


def test_reorder_cost_leaves_no_temporary_folder(tmp_path):
    binary = fake_binary(tmp_path, "exit 3")
    run("reorder_cost.py", "--reps", "1", "--binary", binary, MATRIX,
        env={"TMPDIR": str(tmp_path)})
    assert not [p for p in os.listdir(tmp_path) if p.startswith("reorder_cost")]


def test_mkl_eval_refuses_a_folder_without_matrices(tmp_path):
    binary = fake_binary(tmp_path, "exit 0")
    empty = tmp_path / "empty"
    empty.mkdir()
    refused(run("mkl_eval.py", empty, "--bin", binary), str(empty), "no .mtx or .mtx.gz file")
    refused(run("mkl_eval.py", tmp_path / "none", "--bin", binary), "no such folder")


def test_mkl_eval_sees_gzip_matrices_and_refuses_an_empty_only(tmp_path):
    binary = fake_binary(tmp_path, "exit 0")
    folder = os.path.dirname(MATRIX)  # .mtx.gz files only
    r = run("mkl_eval.py", folder, "--bin", binary, "--only", "no-such-name")
    refused(r, "--only 'no-such-name'")
    assert "no .mtx or .mtx.gz file" not in r.stderr


def test_scale_refuses_an_unknown_matrix_before_any_work():
    refused(run("scale.py", "--matrices", "bogus"), "--matrices", "'bogus'", "rmat22")
