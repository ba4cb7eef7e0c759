"""The pre-registration: the frozen file equals the default config's claims, differences are
named, the git record (and its fallback outside a checkout), and the printed numbers."""

from __future__ import annotations

import copy
import shutil
import subprocess

import pytest
import yaml
from eibench.report.numbers import Numbers
from eibench.report.preregistration import (
    FROZEN,
    add_preregistration,
    differences,
    git_record,
    preregistration_state,
    read_frozen,
    repo_config_files,
)

from ..conftest import REPO
from .rule_map import RULE_SCRIPTS


def test_the_frozen_file_equals_the_default_claims(default_config):
    frozen = read_frozen(REPO / FROZEN)
    assert differences(frozen, default_config["statistics"]) == []


def test_every_test_of_the_default_claims_has_a_frozen_rule(default_config):
    rules = read_frozen(REPO / FROZEN)["decision_rules"]
    assert {c["test"] for c in default_config["statistics"]["claims"]} <= set(rules)


def test_differences_are_named(default_config):
    frozen = read_frozen(REPO / FROZEN)
    used = copy.deepcopy(default_config["statistics"])
    used["alpha"] = 0.1
    used["claims"][2]["params"]["direction"] = "positive"
    used["claims"].pop(0)
    used["claims"].append({"id": "C9", "family": "exploratory", "text": "t", "test": "magic", "params": {}})
    assert differences(frozen, used) == [
        "alpha 0.1 (frozen 0.05)",
        "C9 added",
        "C1 removed",
        "C3 changed",
        "test magic has no frozen decision rule",
    ]


def test_a_broken_frozen_file_names_the_file(tmp_path):
    bad = tmp_path / "prereg.yaml"
    bad.write_text("alpha: 0.05\n")
    with pytest.raises(ValueError, match=r"prereg.yaml: the pre-registration lacks claims, decision_rules"):
        read_frozen(bad)


def test_outside_a_checkout_the_date_and_history_are_unknown(tmp_path, default_config):
    (tmp_path / "config").mkdir()
    shutil.copy(REPO / FROZEN, tmp_path / FROZEN)
    state = preregistration_state(tmp_path, default_config["statistics"])
    assert state["frozen_date"] is None and state["history"] == [] and "not a git checkout" in state["why"]
    nums = Numbers(scripts=RULE_SCRIPTS)
    table = add_preregistration(nums, state)
    assert table.empty and list(table.columns) == ["Commit", "Date", "Subject", "After the freeze"]
    assert nums.entries["prereg.n_after_freeze"]["value"] == 0
    assert nums.entries["prereg.n_before_freeze"]["value"] == 0
    assert nums.entries["prereg.dated"]["value"] is False
    assert "not a git checkout" in nums.entries["prereg.frozen_date"]["value"]
    assert nums.entries["prereg.matches"]["value"] is True


def _git(repo, *args, date="2026-01-02T00:00:00Z"):
    subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "GIT_AUTHOR_DATE": date,
            "GIT_COMMITTER_DATE": date,
            "PATH": "/usr/bin:/bin",
        },
    )


def _frozen_repo(repo):
    """A checkout whose rules were set, then frozen (two commits of rule files)."""
    _git(repo, "init", "-q", "-b", "main")
    (repo / "config").mkdir()
    (repo / "config" / "config.yaml").write_text("seed: 1\nalpha: 0.05\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "set alpha")
    (repo / FROZEN).write_text(yaml.safe_dump({"alpha": 0.05}))
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "freeze the rules", date="2026-01-03T00:00:00Z")


def test_the_git_record_dates_the_freezing_commit_and_lists_rule_changes(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    _git(tmp_path, "init", "-q")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text("seed: 1\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "unrelated config")
    (tmp_path / "config" / "config.yaml").write_text("seed: 1\nalpha: 0.05\n")
    _git(tmp_path, "commit", "-qam", "set alpha")
    (tmp_path / FROZEN).write_text(yaml.safe_dump({"alpha": 0.05}))
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "freeze the rules")
    record = git_record(tmp_path)
    assert record["frozen_date"] == "2026-01-02" and record["frozen_dirty"] is False and record["why"] == ""
    assert [r["subject"] for r in record["history"]] == ["set alpha", "freeze the rules"]  # oldest first
    assert [r["after_freeze"] for r in record["history"]] == [False, False]
    # A later change of the rule code (not of the frozen file) is listed as after the freeze.
    (tmp_path / "workflow" / "eibench" / "stats").mkdir(parents=True)
    (tmp_path / "workflow" / "eibench" / "stats" / "claims.py").write_text("RULE = 1\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "refactor the verdicts")
    (tmp_path / "README").write_text("unrelated\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "unrelated file")
    record = git_record(tmp_path)
    assert [(r["subject"], r["after_freeze"]) for r in record["history"]] == [
        ("set alpha", False),
        ("freeze the rules", False),
        ("refactor the verdicts", True),
    ]
    nums = Numbers(scripts=RULE_SCRIPTS)
    table = add_preregistration(nums, {"sha256": "ab", "differences": [], **record})
    assert nums.entries["prereg.n_after_freeze"]["value"] == 1
    assert nums.entries["prereg.n_before_freeze"]["value"] == 1  # set alpha; the freezing commit is neither
    assert table["After the freeze"].tolist() == ["", "", "yes"]
    (tmp_path / FROZEN).write_text(yaml.safe_dump({"alpha": 0.1}))
    assert git_record(tmp_path)["frozen_dirty"] is True


def test_a_rule_change_merged_after_the_freeze_is_after_it_whatever_its_date(tmp_path):
    # A branch made from the freezing commit changes the rule code with a committer date before
    # the freeze (clock skew, a rebase keeping dates) and is merged after it: it is not in the
    # freezing commit's history, so it is after the freeze, and listed after its parent.
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    _frozen_repo(tmp_path)
    _git(tmp_path, "checkout", "-qb", "side")
    (tmp_path / "workflow" / "eibench" / "stats").mkdir(parents=True)
    (tmp_path / "workflow" / "eibench" / "stats" / "claims.py").write_text("RULE = 2\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "change a rule on a branch", date="2025-12-01T00:00:00Z")
    _git(tmp_path, "checkout", "-q", "main")
    (tmp_path / "README").write_text("x\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "unrelated", date="2026-01-04T00:00:00Z")
    _git(tmp_path, "merge", "-q", "--no-ff", "-m", "merge the branch", "side", date="2026-01-05T00:00:00Z")
    record = git_record(tmp_path)
    marks = {r["subject"]: r["after_freeze"] for r in record["history"]}
    assert marks["set alpha"] is False and marks["freeze the rules"] is False
    assert marks["change a rule on a branch"] is True
    subjects = [r["subject"] for r in record["history"]]
    assert subjects.index("freeze the rules") < subjects.index("change a rule on a branch")


def test_a_shallow_clone_leaves_the_freeze_and_the_history_unknown(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    origin = tmp_path / "origin"
    origin.mkdir()
    _frozen_repo(origin)
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", "shallow")
    record = git_record(tmp_path / "shallow")
    assert record["frozen_date"] is None and record["history"] == [] and "shallow clone" in record["why"]
    assert git_record(origin)["frozen_date"] == "2026-01-03"


def test_long_subjects_are_cut():
    state = {
        "sha256": "ab",
        "differences": ["C3 changed"],
        "frozen_commit": "abc",
        "frozen_date": "2026-01-02",
        "frozen_dirty": False,
        "why": "",
        "history": [{"commit": "abc", "date": "2026-01-02", "subject": "x" * 200, "after_freeze": False}],
    }
    nums = Numbers(scripts=RULE_SCRIPTS)
    table = add_preregistration(nums, state)
    assert len(table.loc[0, "Subject"]) == 90 and table.loc[0, "Subject"].endswith("…")
    assert nums.entries["prereg.matches"]["value"] is False
    assert nums.entries["prereg.differences"]["value"] == "C3 changed"


def test_the_history_covers_the_claim_lines_of_every_config_file_of_the_run(tmp_path):
    """A cohort whose claims live in an overlay (config/esconv.yaml) lists the commits that
    changed them too; a config file outside the repository has no history here."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    _frozen_repo(tmp_path)
    (tmp_path / "config" / "overlay.yaml").write_text("statistics:\n  claims:\n    - id: E1\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "declare E1 in an overlay", date="2026-01-04T00:00:00Z")
    files = repo_config_files(tmp_path, ["config/config.yaml", "config/overlay.yaml", "/elsewhere/x.yaml"])
    assert files == ["config/config.yaml", "config/overlay.yaml"]
    subjects = [r["subject"] for r in git_record(tmp_path, config_files=files)["history"]]
    assert "declare E1 in an overlay" in subjects
    assert "declare E1 in an overlay" not in [r["subject"] for r in git_record(tmp_path)["history"]]
