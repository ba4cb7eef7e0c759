"""Shared fixtures: paths of the repository and of the hand-written release-format corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
RELEASE = REPO / "tests" / "data" / "release"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def release_dir() -> Path:
    return RELEASE


@pytest.fixture(scope="session")
def default_config() -> dict:
    with open(REPO / "config" / "config.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)
