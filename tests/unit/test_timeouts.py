"""pytest-timeout is configured: a per-test timeout in pyproject, and a longer one of their own
for the workflow tests (tests/conftest.py)."""

from __future__ import annotations

import tomllib

import pytest

from .. import conftest
from ..conftest import REPO


def test_pyproject_sets_a_per_test_timeout():
    options = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert 60 <= options["timeout"] < conftest.WORKFLOW_TIMEOUT_S


def test_pytest_timeout_is_active(pytestconfig):
    assert pytestconfig.pluginmanager.hasplugin("timeout")
    assert float(pytestconfig.getini("timeout")) == 600


class _Item:
    def __init__(self, *marks):
        self.marks = {m.name: m for m in marks}
        self.added = []

    def get_closest_marker(self, name):
        return self.marks.get(name)

    def add_marker(self, mark):
        self.added.append(mark)


def test_workflow_tests_get_their_own_timeout_unless_they_set_one():
    workflow, own, unit = (
        _Item(pytest.mark.workflow.mark),
        _Item(pytest.mark.workflow.mark, pytest.mark.timeout(5).mark),
        _Item(),
    )
    conftest.pytest_collection_modifyitems(None, [workflow, own, unit])
    assert [m.args for m in workflow.added] == [(conftest.WORKFLOW_TIMEOUT_S,)]
    assert not own.added and not unit.added
