"""The local mirrors of the public datasets (../shared/data beside the repository); tests that
need one are skipped, with the reason, where it is absent, unless EIBENCH_REQUIRE_MIRRORS=1
(CI, .ci/run), where an absent mirror is a failure: the real-data tests cannot skip there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..conftest import REPO

SHARED_DATA = REPO.parent / "shared" / "data"


def mirror(name: str) -> Path:
    path = SHARED_DATA / name
    if not path.is_dir():
        reason = f"no local mirror of {name} at {path}"
        if os.environ.get("EIBENCH_REQUIRE_MIRRORS") == "1":
            pytest.fail(f"EIBENCH_REQUIRE_MIRRORS=1 but {reason}")
        pytest.skip(reason)
    return path


@pytest.fixture
def esconv_dir() -> Path:
    return mirror("esconv")


@pytest.fixture
def eqbench_dir() -> Path:
    return mirror("eqbench")


@pytest.fixture
def emobench_m_dir() -> Path:
    return mirror("emobench_m")
