"""The Python examples of the README and docs/python.md run as written."""

import re

import pytest

from conftest import REPO

PAGES = ["README.md", "docs/python.md"]


def examples():
    found = []
    for page in PAGES:
        text = (REPO / page).read_text()
        for i, block in enumerate(re.findall(r"^```python\n(.*?)^```$", text, re.M | re.S)):
            found.append(pytest.param(block, id=f"{page}#{i}"))
    return found


def test_the_pages_have_examples():
    assert len(examples()) >= 2


@pytest.mark.parametrize("code", examples())
def test_example_runs(code, monkeypatch):
    monkeypatch.chdir(REPO)  # the examples name bundled matrices relative to the repository
    exec(compile(code, "<example>", "exec"), {"__name__": "__example__"})
