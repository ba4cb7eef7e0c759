"""The code passes the linter configured in pyproject.toml (pyflakes, pycodestyle errors,
bugbear, import order)."""

import subprocess
import sys
from pathlib import Path

from ..conftest import REPO


def test_ruff_is_clean():
    ruff = Path(sys.executable).with_name("ruff")
    run = subprocess.run(
        [str(ruff), "check", "workflow", "tests", "benchmarks", "notebooks"], cwd=REPO, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
