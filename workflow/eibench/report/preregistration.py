"""The pre-registration: the frozen file of claims and decision rules, its sha256 and freezing
commit, whether the claims a run tests equal it, and the history of rule changes from git.

``config/preregistration.yaml`` holds the claims (as ``statistics.claims`` declares them), the
level ``alpha``, the ``independence_margin``, the multiplicity method of each family and the
decision rule of each test, in words. The workflow reads it at parse time
(:func:`preregistration_state`, workflow/rules/truth.smk) and the paper prints what
:func:`add_preregistration` adds. Outside a git checkout (a copy of the sources) the freezing
date and the history are unknown and the paper says so.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import Any, Iterable, Sequence

import pandas as pd
import yaml

from .numbers import Numbers
from .reproducibility import git_output

FROZEN = "config/preregistration.yaml"
# The files whose history is the history of the decision rules: the frozen file and the code
# that turns test results into verdicts.
RULE_FILES = (
    FROZEN,
    "workflow/eibench/stats/claims.py",
    "workflow/eibench/stats/multiplicity.py",
    "workflow/eibench/stats/testability.py",
)
# Commits of the run's config files (config/config.yaml and any --configfile in the repository)
# that changed a line declaring a claim or a decision setting.
CONFIG_FILE = "config/config.yaml"
CONFIG_PATTERN = r"(- id|family|test|margin|alpha|independence_margin|direction|category|better|worse): "
COMPARED = ("alpha", "independence_margin")
RULE = "paper_numbers"
SUBJECT_CHARS = 90


def read_frozen(path: Path) -> dict[str, Any]:
    """The frozen file's content; a clear error naming the file and the missing keys."""
    try:
        doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: cannot read the pre-registration ({exc}); restore it from git") from None
    missing = [k for k in ("claims", "decision_rules", *COMPARED) if not isinstance(doc, dict) or k not in doc]
    if missing:
        raise ValueError(f"{path}: the pre-registration lacks {', '.join(missing)}; restore it from git")
    return doc


def differences(frozen: dict[str, Any], statistics: dict[str, Any]) -> list[str]:
    """How the claims and settings a run tests (config ``statistics``) differ from the frozen
    ones, one short phrase each, sorted; empty when they are equal."""
    out = [f"{k} {statistics.get(k)!r} (frozen {frozen[k]!r})" for k in COMPARED if statistics.get(k) != frozen[k]]
    used = {c["id"]: c for c in statistics.get("claims", [])}
    kept = {c["id"]: c for c in frozen["claims"]}
    out += [f"{i} added" for i in sorted(set(used) - set(kept))]
    out += [f"{i} removed" for i in sorted(set(kept) - set(used))]
    out += [f"{i} changed" for i in sorted(set(used) & set(kept)) if used[i] != kept[i]]
    tests = {c["test"] for c in statistics.get("claims", [])}
    out += [f"test {t} has no frozen decision rule" for t in sorted(tests - set(frozen["decision_rules"]))]
    return out


def git_record(repo: Path, timeout: float = 20.0, config_files: Sequence[str] = (CONFIG_FILE,)) -> dict[str, Any]:
    """The frozen file's last commit (``frozen_commit``, ``frozen_date`` YYYY-MM-DD), whether it has
    uncommitted changes, and ``history``: every commit that changed a rule file (or a claim line
    of one of ``config_files``, the run's config files relative to ``repo``), oldest first
    (parents before children), as {commit, date, subject, after_freeze}; ``after_freeze`` is
    True for a commit that is not in the freezing commit's own history (``git rev-list
    FROZEN..HEAD``: made after it, or on a branch merged after it; such a commit changed the rule
    code, or a claim line of a config file, not the frozen file).
    ``why`` says why they are unknown (no .git, a shallow clone, git unreadable, the file never
    committed); then the others are None or empty (and no commit is after the freeze)."""
    empty: dict[str, Any] = {"frozen_commit": None, "frozen_date": None, "frozen_dirty": None, "history": []}
    if not (Path(repo) / ".git").exists():
        return {**empty, "why": "not a git checkout: the freezing commit and the history of rule changes are unknown"}
    fmt = "--format=%H%x09%h%x09%cs%x09%s"
    try:
        if git_output(repo, "rev-parse", "--is-shallow-repository", timeout=timeout).strip() == "true":
            return {
                **empty,
                "why": "a shallow clone: the freezing commit and the history of rule changes are unknown "
                "(git fetch --unshallow makes them known)",
            }
        last = git_output(repo, "log", "-1", fmt, "--", FROZEN, timeout=timeout).strip()
        dirty = bool(git_output(repo, "status", "--porcelain", "--", FROZEN, timeout=timeout).strip())
        lines = git_output(repo, "log", fmt, "--", *RULE_FILES, timeout=timeout).splitlines()
        lines += git_output(repo, "log", fmt, "-G", CONFIG_PATTERN, "--", *config_files, timeout=timeout).splitlines()
        # Topological order: committer dates need not follow the history (merged branches, clock skew).
        order = git_output(repo, "log", "--topo-order", "--format=%H", timeout=timeout).split()
        frozen = last.split("\t", 1)[0]
        after = set(git_output(repo, "rev-list", f"{frozen}..HEAD", timeout=timeout).split()) if last else set()
    except (OSError, subprocess.SubprocessError) as exc:
        return {**empty, "why": f"git could not read the checkout ({type(exc).__name__})"}
    rank = {h: i for i, h in enumerate(order)}  # the newest first
    history: dict[str, dict[str, Any]] = {}
    for line in lines:
        full, commit, date, subject = line.split("\t", 3)
        history[full] = {"commit": commit, "date": date, "subject": subject, "after_freeze": full in after}
    rows = [history[h] for h in sorted(history, key=lambda h: -rank.get(h, -1))]
    if not last:
        return {
            **empty,
            "history": rows,
            "frozen_dirty": dirty,
            "why": f"{FROZEN} is not committed: it has no freezing commit",
        }
    _, commit, date, _ = last.split("\t", 3)
    return {"frozen_commit": commit, "frozen_date": date, "frozen_dirty": dirty, "history": rows, "why": ""}


def repo_config_files(repo: Path, config_files: Iterable[str | Path]) -> list[str]:
    """The run's config files that lie in ``repo`` (relative POSIX paths, in order, once each),
    ``CONFIG_FILE`` first: those whose history git holds."""
    root = Path(repo).resolve()
    out = [CONFIG_FILE]
    for f in config_files:
        path = (root / f).resolve()
        if path.is_relative_to(root) and path.relative_to(root).as_posix() not in out:
            out.append(path.relative_to(root).as_posix())
    return out


def preregistration_state(
    repo: Path, statistics: dict[str, Any], config_files: Sequence[str] = (CONFIG_FILE,)
) -> dict[str, Any]:
    """Everything the paper prints about the pre-registration, read at parse time: the file's
    sha256, the git record (:func:`git_record`, over the run's ``config_files`` in the
    repository) and the differences from the claims tested."""
    path = Path(repo) / FROZEN
    frozen = read_frozen(path)
    return {
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "differences": differences(frozen, statistics),
        "config_files": list(config_files),
        **git_record(repo, config_files=config_files),
    }


def add_preregistration(nums: Numbers, state: dict[str, Any]) -> pd.DataFrame:
    """Add the ``prereg.*`` numbers; return the history table (Commit, Date, Subject, After the
    freeze: "yes" or ""; subjects longer than 90 characters cut with an ellipsis)."""
    nums.add("prereg.file", FROZEN, RULE)
    nums.add("prereg.config_files", ", ".join(state.get("config_files", [CONFIG_FILE])), RULE)
    nums.add("prereg.sha256", state["sha256"], RULE)
    known = state["frozen_date"] is not None
    nums.add("prereg.dated", known, RULE)
    nums.add("prereg.frozen_date", state["frozen_date"] if known else state["why"], RULE)
    nums.add("prereg.frozen_commit", state["frozen_commit"] or "none", RULE)
    nums.add("prereg.frozen_dirty", bool(state["frozen_dirty"]), RULE)
    nums.add("prereg.matches", not state["differences"], RULE)
    nums.add("prereg.differences", "; ".join(state["differences"]) or "none", RULE)
    nums.add("prereg.n_changes", len(state["history"]), RULE)
    after = [bool(r["after_freeze"]) for r in state["history"]]
    before = [not a and r["commit"] != state["frozen_commit"] for r, a in zip(state["history"], after)]
    nums.add("prereg.n_before_freeze", sum(before) if known else 0, RULE)
    nums.add("prereg.n_after_freeze", sum(after), RULE)
    nums.add("prereg.history_why", state["why"] or "none", RULE)

    def cut(s: str) -> str:
        return s if len(s) <= SUBJECT_CHARS else s[: SUBJECT_CHARS - 1].rstrip() + "…"

    columns = ["Commit", "Date", "Subject", "After the freeze"]
    return pd.DataFrame(
        [[r["commit"], r["date"], cut(r["subject"]), "yes" if r["after_freeze"] else ""] for r in state["history"]],
        columns=columns,
    )
