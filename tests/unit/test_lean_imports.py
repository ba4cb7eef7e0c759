"""The iri format checker (rfc3987_syntax, 1.4 s at import) stays out of the processes that
import jsonschema for us, and what they validate is still validated."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import json, sys
import {module}
print(json.dumps({{"skipped": "rfc3987_syntax" in sys.modules and sys.modules["rfc3987_syntax"] is None,
                   "lark": "lark" in sys.modules, "jsonschema": "jsonschema" in sys.modules}}))
"""


@pytest.mark.parametrize("module", ["eibench.configuration", "eibench.report.notebooks"])
def test_importing_our_jsonschema_users_skips_the_grammar(module):
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True, check=True
    ).stdout
    found = json.loads(out)
    assert found == {"skipped": True, "lark": False, "jsonschema": True}


def test_notebooks_are_still_validated_without_it():
    probe = """
import sys
from eibench.report import notebooks  # noqa: F401  (skips the checker, then imports nbformat)
import nbformat
assert sys.modules["rfc3987_syntax"] is None
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
nbformat.validate(nb)
nb.cells[0]["cell_type"] = "not a cell type"
try:
    nbformat.validate(nb)
except nbformat.ValidationError:
    print("refused")
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "refused"


def test_an_already_imported_module_is_left_alone(monkeypatch):
    from eibench.lean_imports import skip_iri_format_checker

    marker = object()
    monkeypatch.setitem(sys.modules, "rfc3987_syntax", marker)
    skip_iri_format_checker()
    assert sys.modules["rfc3987_syntax"] is marker
