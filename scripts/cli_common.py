"""Helpers shared by the scripts a user runs: option types that argparse checks at parse time,
child processes that fail with one line instead of a traceback, and outputs that never overwrite
an input and are written whole or not at all.

Imported by the scripts from their own folder (`python3 scripts/X.py` puts it on sys.path); needs
no package outside the standard library."""

import argparse
import glob
import os
import shlex
import subprocess
import sys
import tempfile

MATRIX_SUFFIXES = (".mtx", ".mtx.gz")


def positive_int(text):
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: at least 1")
    return value


def positive_float(text):
    """An argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: a finite number above 0")
    return value


def positive_int_list(text):
    """An argparse type: comma-separated whole numbers, each at least 1, e.g. `1,2`."""
    words = [w for w in text.split(",") if w.strip()]
    if not words:
        raise argparse.ArgumentTypeError(f"{text!r}: expected numbers like 1,2")
    return [positive_int(w.strip()) for w in words]


def choice_list(choices):
    """An argparse type: comma-separated words, each one of `choices`, none repeated."""

    def parse(text):
        words = [w.strip() for w in text.split(",") if w.strip()]
        if not words:
            raise argparse.ArgumentTypeError(f"{text!r}: expected some of {','.join(choices)}")
        for w in words:
            if w not in choices:
                raise argparse.ArgumentTypeError(
                    f"{w!r} is not one of {', '.join(choices)}")
        if len(set(words)) != len(words):
            raise argparse.ArgumentTypeError(f"{text!r}: a word is repeated")
        return words

    return parse


def run_child(cmd, what, on, **kwargs):
    """Runs `cmd` (a list) as `subprocess.run(cmd, **kwargs)`; when it cannot start or exits
    non-zero, ends this script with one line `WHAT failed on ON (exit N)` after the child's own
    stderr (shown as it ran, or printed here when captured)."""
    try:
        r = subprocess.run(cmd, **kwargs)
    except OSError as e:
        sys.exit(f"{what} failed on {on}: cannot run {cmd[0]}: {e.strerror}")
    if r.returncode != 0:
        err = r.stderr if isinstance(r.stderr, str) else (r.stderr or b"").decode(errors="replace")
        if err:
            sys.stderr.write(err if err.endswith("\n") else err + "\n")
        sys.exit(f"{what} failed on {on} (exit {r.returncode}): {shlex.join(map(str, cmd))}")
    return r


def require_files(ap, paths, what="file"):
    """Ends with an argparse error naming the first of `paths` that is not a readable file."""
    for p in paths:
        if not os.path.exists(p):
            ap.error(f"{what} {p}: no such file")
        if os.path.isdir(p):
            ap.error(f"{what} {p}: a folder, not a file")
        if not os.access(p, os.R_OK):
            ap.error(f"{what} {p}: not readable")


def require_executable(ap, option, path, build="cargo build --release"):
    """Ends with an argparse error when `path` (given by `option`) is not an executable file;
    `build` is the command that makes it."""
    if not os.path.isfile(path):
        ap.error(f"{option} {path}: no such file (`{build}` builds it)")
    if not os.access(path, os.X_OK):
        ap.error(f"{option} {path}: not executable")


def matrices_in(ap, folder, only=None):
    """The Matrix Market files (`.mtx`, `.mtx.gz`) of `folder` whose name contains `only`, sorted;
    an argparse error when the folder is missing or the selection is empty."""
    if not os.path.isdir(folder):
        ap.error(f"{folder}: {'not a folder' if os.path.exists(folder) else 'no such folder'}")
    files = sorted(f for s in MATRIX_SUFFIXES for f in glob.glob(os.path.join(folder, "*" + s)))
    if not files:
        ap.error(f"{folder}: no .mtx or .mtx.gz file")
    if only:
        files = [f for f in files if only in os.path.basename(f)]
        if not files:
            ap.error(f"--only {only!r}: no file of {folder} has it in its name")
    return files


def refuse_overwrite(ap, option, out, inputs):
    """Ends with an argparse error when the output `out` (given by `option`) is one of `inputs`
    (the same file by device and inode, so that links and other spellings are caught too) or a
    folder; call before any work."""
    if os.path.isdir(out):
        ap.error(f"{option} {out}: a folder, not a file")
    if not os.path.exists(out):
        folder = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(folder):
            ap.error(f"{option} {out}: no such folder {folder}")
        return
    for i in inputs:
        if os.path.exists(i) and os.path.samefile(out, i):
            ap.error(f"{option} {out}: is the input {i}; refusing to overwrite it")


def write_atomically(path, write):
    """Calls `write(file)` on a temporary file in `path`'s folder, then renames it onto `path`:
    readers see the old file or the whole new one, never a half-written one."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                               dir=folder)
    try:
        with os.fdopen(fd, "w") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
