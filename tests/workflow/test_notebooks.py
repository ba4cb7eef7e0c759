"""Every notebook runs top to bottom on the small run's results/."""

from __future__ import annotations

from pathlib import Path

import jupytext
import pytest
from nbclient import NotebookClient

from ..conftest import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9]*.py"))
pytestmark = pytest.mark.workflow


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes(path: Path, small_run):
    nb = jupytext.read(path)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(small_run)}}).execute()
    errors = [o for cell in nb.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    assert any(cell.get("outputs") for cell in nb.cells if cell.cell_type == "code")
