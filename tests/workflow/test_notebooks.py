"""Every notebook runs top to bottom on the small run's results/: the workflow executed each one
after the build (rule notebook, workflow/rules/notebooks.smk) into results/notebooks/, as an
executed .ipynb and its HTML rendering for the audit report."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from ..conftest import REPO

NOTEBOOKS = sorted(p for p in (REPO / "notebooks").glob("[0-9]*.ipynb") if "." not in p.stem)
pytestmark = pytest.mark.workflow


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 4


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_run_executed_the_notebook(path: Path, small_run):
    executed = small_run / "results" / "notebooks" / f"{path.stem}.ipynb"
    nb = nbformat.read(executed, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    source = nbformat.read(small_run / "notebooks" / path.name, as_version=4)  # the run's copy of the notebook
    assert [c.source for c in code] == [c.source for c in source.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "every code cell ran"
    errors = [o for c in code for o in c.outputs if o.get("output_type") == "error"]
    assert not errors
    assert any(c.outputs for c in code)
    html = (small_run / "results" / "notebooks" / f"{path.stem}.html").read_text(encoding="utf-8")
    assert f"<title>{path.stem}</title>" in html
    assert not re.findall(r'(?:src|href)="https?://', html)


def test_the_reviewers_notebook_recomputed_the_printed_number(small_run):
    nb = nbformat.read(small_run / "results" / "notebooks" / "04_recompute_a_printed_number.ipynb", as_version=4)
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    found = re.search(
        r"equal: (\d\.\d+) recomputed; (\d\.\d+) in the text and (\d\.\d+) in the leaderboard table", printed
    )
    assert found, printed
    recomputed, in_text, in_table = found.groups()
    for shown in (in_text, in_table):  # each printed number is the recomputed one at its own decimals
        decimals = len(shown.split(".")[1])
        assert f"{float(recomputed):.{decimals}f}" == shown, (recomputed, shown)
