"""The library closure of a script and its digest (eibench/code_digest.py), on a small package
written here, and on the real library against the standard library's modulefinder."""

from __future__ import annotations

import modulefinder
from pathlib import Path

import pytest
from eibench.code_digest import Library

from ..conftest import REPO


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def package(tmp_path) -> Path:
    """A package ``pkg`` beside a ``scripts`` folder: absolute, relative, nested, from-package
    and function-level imports, a data folder, a module nobody imports."""
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from . import b\nfrom .sub.c import f\n",
            "pkg/b.py": "import os\n\ndef g():\n    import pkg.lazy\n",
            "pkg/lazy.py": "",
            "pkg/unused.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/c.py": "from .. import unrelated_name\nfrom ..d import *\ntry:\n    import numpy\n"
            "except ImportError:\n    pass\n",
            "pkg/d.py": "",
            "pkg/sub/table.csv": "x\n1\n",
            "pkg/sub/data/prompts.yaml": "a: 1\n",
            "pkg/sub/__pycache__/c.cpython-311.pyc": "junk",
            "pkg/other/__init__.py": "",
            "pkg/other/data.csv": "y\n",
            "scripts/run.py": "from pkg.a import thing\nimport sys\n",
            "scripts/other.py": "from pkg import other\n",
        },
    )
    return tmp_path


def _names(lib: Library, files) -> list[str]:
    return [p.relative_to(lib.root).as_posix() for p in files]


def test_closure_follows_every_kind_of_import(package):
    lib = Library(package / "pkg", "pkg")
    assert _names(lib, lib.closure(package / "scripts/run.py")) == [
        "__init__.py",
        "a.py",
        "b.py",
        "d.py",
        "lazy.py",
        "sub/__init__.py",
        "sub/c.py",
    ]
    assert _names(lib, lib.closure(package / "scripts/other.py")) == ["__init__.py", "other/__init__.py"]


def test_data_files_belong_to_their_package(package):
    lib = Library(package / "pkg", "pkg")
    assert _names(lib, lib.files(package / "scripts/run.py")) == [
        "__init__.py",
        "a.py",
        "b.py",
        "d.py",
        "lazy.py",
        "sub/__init__.py",
        "sub/c.py",
        "sub/data/prompts.yaml",
        "sub/table.csv",
    ]
    assert _names(lib, lib.files(package / "scripts/other.py")) == [
        "__init__.py",
        "other/__init__.py",
        "other/data.csv",
    ]


@pytest.mark.parametrize(
    ("edited", "changes"),
    [
        ("pkg/sub/c.py", True),
        ("pkg/lazy.py", True),
        ("pkg/sub/table.csv", True),
        ("pkg/sub/data/prompts.yaml", True),
        ("pkg/unused.py", False),
        ("pkg/other/data.csv", False),
        ("pkg/sub/__pycache__/c.cpython-311.pyc", False),
    ],
)
def test_digest_changes_with_the_files_run_and_only_those(package, edited, changes):
    before = Library(package / "pkg", "pkg").script_digest(package / "scripts/run.py")
    with open(package / edited, "a", encoding="utf-8") as fh:
        fh.write("\n# edited\n")
    after = Library(package / "pkg", "pkg").script_digest(package / "scripts/run.py")
    assert (after != before) is changes


def test_digest_does_not_depend_on_where_the_repository_is(package, tmp_path_factory):
    import shutil

    moved = tmp_path_factory.mktemp("elsewhere") / "copy"
    shutil.copytree(package, moved)
    assert Library(package / "pkg", "pkg").script_digest(package / "scripts/run.py") == Library(
        moved / "pkg", "pkg"
    ).script_digest(moved / "scripts/run.py")


@pytest.mark.parametrize("script", sorted((REPO / "workflow/scripts").glob("*.py")), ids=lambda p: p.name)
def test_closure_of_every_rule_script_matches_modulefinder(script):
    lib = Library(REPO / "workflow/eibench")
    finder = modulefinder.ModuleFinder(path=[str(REPO / "workflow")])
    finder.run_script(str(script))
    expected = sorted(
        Path(m.__file__).resolve() for name, m in finder.modules.items() if name.split(".")[0] == "eibench"
    )
    assert lib.closure(script) == expected
