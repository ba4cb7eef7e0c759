"""The reproducibility statement's pieces: git state, package versions, input checksums, the
rebuild command and the entries written to numbers.json."""

from __future__ import annotations

import hashlib
import shutil
import subprocess

import pytest
from eibench.report.reproducibility import (
    KEY_PACKAGES,
    NOT_A_CHECKOUT,
    describe_git,
    files_digest,
    git_state,
    listed_files,
    package_versions,
    rebuild_command,
    statement,
)


def test_a_copy_without_git_is_not_a_checkout(tmp_path):
    state = git_state(tmp_path)
    assert state == {"commit": None, "dirty": None, "why": NOT_A_CHECKOUT}
    assert describe_git(state) == NOT_A_CHECKOUT


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_state_reads_the_commit_and_uncommitted_changes(tmp_path):
    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "first")
    clean = git_state(tmp_path)
    assert len(clean["commit"]) == 40 and clean["dirty"] is False
    assert describe_git(clean) == clean["commit"] + " (clean)"
    (tmp_path / "a.txt").write_text("b\n")
    dirty = git_state(tmp_path)
    assert dirty["commit"] == clean["commit"] and dirty["dirty"] is True
    assert describe_git(dirty).endswith("with uncommitted changes")


def test_package_versions_name_python_and_every_key_package():
    versions = package_versions()
    assert list(versions) == ["python", *KEY_PACKAGES]
    assert all(v and v != "not installed" for v in versions.values())
    assert package_versions(["no-such-package-xyz"])["no-such-package-xyz"] == "not installed"


def test_files_digest_is_the_sha256_of_the_sorted_sha256sum_listing(tmp_path):
    folder = tmp_path / "conversations"
    folder.mkdir()
    (folder / "b.json").write_bytes(b"{}")
    (folder / "a.json").write_bytes(b"[]")
    (folder / ".snakemake_timestamp").write_bytes(b"")  # hidden: left out
    listing = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in (("a.json", b"[]"), ("b.json", b"{}"))
    )
    assert files_digest([folder]) == (2, hashlib.sha256(listing.encode()).hexdigest())
    # The same files listed one by one (a release on disk) give the same digest; order does not matter.
    assert files_digest([folder / "b.json", folder / "a.json"]) == files_digest([folder])
    assert [name for name, _ in listed_files([folder])] == ["a.json", "b.json"]


def test_files_digest_changes_with_one_byte_and_with_a_name(tmp_path):
    (tmp_path / "a.json").write_bytes(b"[]")
    before = files_digest([tmp_path])
    (tmp_path / "a.json").write_bytes(b"[ ]")
    assert files_digest([tmp_path]) != before
    (tmp_path / "a.json").write_bytes(b"[]")
    assert files_digest([tmp_path]) == before
    (tmp_path / "a.json").rename(tmp_path / "c.json")
    assert files_digest([tmp_path]) != before


def test_files_digest_of_nothing():
    assert files_digest([]) == (0, hashlib.sha256(b"").hexdigest())


def test_rebuild_command(tmp_path):
    assert rebuild_command() == "snakemake --cores 8"
    assert (
        rebuild_command([tmp_path / "config" / "small.yaml"], {}, tmp_path)
        == "snakemake --cores 8 --configfile config/small.yaml"
    )
    cmd = rebuild_command([], {"seed": 7, "statistics": {"simulation": {"n_null": 40}}, "cohort": "synthetic"})
    assert cmd == "snakemake --cores 8 --config cohort=synthetic seed=7 'statistics={simulation: {n_null: 40}}'"


def test_statement_entries_and_labels():
    rows = statement(
        {"commit": None, "dirty": None, "why": NOT_A_CHECKOUT},
        {"python": "3.11.7", "pandas": "3.1.1"},
        "d" * 64,
        {"cohort": (20, "a" * 64), "sim-01/default": (20, "b" * 64), "one/default": (1, "c" * 64)},
        "snakemake --cores 8",
    )
    by_key = {r["key"]: r for r in rows}
    assert by_key["repro.input.one/default.sha256"]["item"] == "Predictions one/default (1 file)"
    assert by_key["repro.git"]["value"] == NOT_A_CHECKOUT
    assert by_key["repro.git_dirty"]["value"] is False
    assert by_key["repro.git_commit"]["value"] is False  # the paper then says no commit identifies the tree
    assert by_key["repro.version.python"]["item"] == "Python"
    assert by_key["repro.input.cohort.sha256"]["item"] == "Conversation files (20)"
    assert by_key["repro.input.sim-01/default.sha256"]["item"] == "Predictions sim-01/default (20 files)"
    assert by_key["repro.input.sim-01/default.n_files"]["value"] == 20
    assert len(by_key) == len(rows)
    # The same arguments give the same entries (nothing read from the clock or the machine).
    assert rows == statement(
        {"commit": None, "dirty": None, "why": NOT_A_CHECKOUT},
        {"python": "3.11.7", "pandas": "3.1.1"},
        "d" * 64,
        {"cohort": (20, "a" * 64), "sim-01/default": (20, "b" * 64), "one/default": (1, "c" * 64)},
        "snakemake --cores 8",
    )


def test_frozen_requirements_are_the_lines_of_pip_freeze():
    import subprocess
    import sys

    from eibench.report.reproducibility import freeze_digest, frozen_requirements

    out = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--exclude-editable", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert frozen_requirements() == out.splitlines()
    assert freeze_digest(frozen_requirements()) == hashlib.sha256(out.encode()).hexdigest()
    versions = package_versions(freeze=True)
    assert versions["vaderSentiment"] != "not installed" and versions["NRCLex"] != "not installed"
    assert versions["pip_freeze_sha256"] == freeze_digest(frozen_requirements())
