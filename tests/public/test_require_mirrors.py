"""Without a mirror a real-data test skips, with the reason; with EIBENCH_REQUIRE_MIRRORS=1 (CI)
it fails instead."""

from __future__ import annotations

import pytest

from . import conftest


def test_an_absent_mirror_skips(tmp_path, monkeypatch):
    monkeypatch.setattr(conftest, "SHARED_DATA", tmp_path)
    monkeypatch.delenv("EIBENCH_REQUIRE_MIRRORS", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no local mirror of esconv"):
        conftest.mirror("esconv")


@pytest.mark.parametrize("value, outcome", [("1", pytest.fail.Exception), ("0", pytest.skip.Exception)])
def test_an_absent_mirror_fails_when_mirrors_are_required(tmp_path, monkeypatch, value, outcome):
    monkeypatch.setattr(conftest, "SHARED_DATA", tmp_path)
    monkeypatch.setenv("EIBENCH_REQUIRE_MIRRORS", value)
    with pytest.raises(outcome, match="no local mirror of eqbench"):
        conftest.mirror("eqbench")


def test_a_present_mirror_is_returned(tmp_path, monkeypatch):
    (tmp_path / "emobench_m").mkdir()
    monkeypatch.setattr(conftest, "SHARED_DATA", tmp_path)
    monkeypatch.setenv("EIBENCH_REQUIRE_MIRRORS", "1")
    assert conftest.mirror("emobench_m") == tmp_path / "emobench_m"
