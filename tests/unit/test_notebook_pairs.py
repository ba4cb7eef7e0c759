"""Every notebook of notebooks/ is a jupytext pair: NAME.ipynb (what a plain Jupyter opens) and
NAME.py (the percent-format script), with the same cells; the .ipynb is committed without
outputs (the workflow's rule `notebook` executes it, workflow/rules/notebooks.smk)."""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat
import pytest
from jupytext.compare import NotebookDifference, compare_notebooks

from ..conftest import REPO

FOLDER = REPO / "notebooks"
SCRIPTS = sorted(FOLDER.glob("[0-9]*.py"))
NOTEBOOKS = sorted(p for p in FOLDER.glob("[0-9]*.ipynb") if "." not in p.stem)


def test_every_script_has_its_notebook_and_back():
    assert SCRIPTS
    assert [p.stem for p in SCRIPTS] == [p.stem for p in NOTEBOOKS]


def test_the_repository_pairs_them():
    config = (REPO / "jupytext.toml").read_text(encoding="utf-8")
    assert 'formats = "ipynb,py:percent"' in config


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_the_pair_has_the_same_cells(script: Path):
    ipynb = script.with_suffix(".ipynb")
    # compare_notebooks raises on any difference of cell type, source or (filtered) metadata.
    compare_notebooks(jupytext.read(ipynb), jupytext.read(script), fmt="py:percent")
    assert jupytext.read(script).metadata["jupytext"]["formats"] == "ipynb,py:percent"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_committed_notebook_is_valid_and_has_no_outputs(notebook: Path):
    nb = nbformat.read(notebook, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


def test_a_difference_is_caught(tmp_path):
    script = SCRIPTS[0]
    nb = jupytext.read(script.with_suffix(".ipynb"))
    nb.cells[-1].source += "\nprint('edited in Jupyter only')"
    with pytest.raises(NotebookDifference):
        compare_notebooks(nb, jupytext.read(script), fmt="py:percent")
