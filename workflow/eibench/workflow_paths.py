"""Checks of the workflow's own paths against the config and the disk, when it is parsed.

The paths are the patterns of every rule's outputs, logs and benchmarks (``results/scores/{model}/
{mode}/turn.parquet``, ``results/scores/leaderboard.csv``, ...), given as strings.

- A model name is a folder name next to the workflow's own files: a model called
  ``leaderboard.csv`` would put ``results/scores/leaderboard.csv/`` where the leaderboard goes
  (Snakemake stops with a ChildIOException naming no config key). :func:`model_name_clashes`
  names each such model, case-insensitively (``Leaderboard.CSV`` clashes too on macOS).
- A file where the workflow needs a folder (a file named ``results`` or ``logs``) would stop the
  first job with a raw traceback. :func:`files_in_the_way` names it before any job runs.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Sequence

MODEL = "{model}"


def rule_paths(rules: Iterable[Any]) -> list[str]:
    """The patterns of every output, log and benchmark of Snakemake ``rules`` (``workflow.rules``),
    sorted and without repeats."""
    paths: set[str] = set()
    for r in rules:
        paths.update(map(str, r.output))
        paths.update(map(str, r.log))
        if r.benchmark:
            paths.add(str(r.benchmark))
    return sorted(paths)


def strip_constraints(pattern: str) -> str:
    """``{model,a|b}`` -> ``{model}``: Snakemake writes wildcard constraints into the patterns
    of a rule's files; a constraint may hold braces of its own (``{n,[0-9]{2}}``)."""
    out, depth, skipping = [], 0, False
    for ch in pattern:
        if ch == "{":
            depth += 1
            if depth > 1:
                continue
        elif ch == "}":
            depth -= 1
            if depth > 0:
                continue
            skipping = False
        elif ch == "," and depth == 1:
            skipping = True
            continue
        if not skipping:
            out.append(ch)
    return "".join(out)


def _parts(pattern: str) -> tuple[str, ...]:
    return tuple(p for p in PurePosixPath(strip_constraints(pattern)).parts if p != ".")


def _model_position(parts: tuple[str, ...], k: int, names: set[str]) -> bool:
    """Is ``parts[k]`` a model's entry: the ``{model}`` wildcard, or the name of a model that a
    rule lists by name (the simulated ones), followed by its mode as every per-model path is."""
    return parts[k] == MODEL or (parts[k] in names and any("{mode}" in p for p in parts[k + 1 :]))


def model_folders(patterns: Iterable[str], model_names: Iterable[str]) -> set[tuple[str, ...]]:
    """The folders that hold one entry per model (the constant path before a model's entry)."""
    names = set(model_names)
    folders = set()
    for parts in map(_parts, patterns):
        for k in range(len(parts)):
            if _model_position(parts, k, names):
                folders.add(parts[:k])
            if "{" in parts[k] or parts[k] in names:
                break
    return folders


def reserved_names(patterns: Sequence[str], model_names: Iterable[str]) -> dict[str, str]:
    """Case-folded names that a model may not have, each with the workflow path it would clash
    with: every constant entry the workflow writes in a folder of per-model entries."""
    names = set(model_names)
    folders = model_folders(patterns, names)
    reserved: dict[str, str] = {}
    for parts in map(_parts, patterns):
        for k in range(len(parts)):
            if "{" in parts[k] or _model_position(parts, k, names):
                break
            if parts[:k] in folders:
                reserved.setdefault(parts[k].casefold(), "/".join(parts[: k + 1]))
    return reserved


def model_name_clashes(model_names: Sequence[str], patterns: Sequence[str]) -> list[str]:
    """One message per model whose name (case-insensitively) is a path the workflow writes
    next to the per-model folders."""
    reserved = reserved_names(patterns, model_names)
    problems = []
    for i, name in enumerate(model_names):
        clash = reserved.get(name.casefold())
        if clash is not None:
            folder = str(PurePosixPath(clash).parent)
            problems.append(
                f"config key 'models[{i}].name': {name!r} would be the folder {folder}/{name}/, but the "
                f"workflow writes {clash} there (next to each model's folder {folder}/<model>/); "
                "rename the model"
            )
    return problems


def files_in_the_way(patterns: Iterable[str], base: Path) -> list[str]:
    """One message per existing path under ``base`` that is not a folder but must be one: an
    ancestor folder of a path the workflow writes (up to the first wildcard)."""
    problems: dict[Path, str] = {}
    for pattern in patterns:
        parts = _parts(pattern)
        if PurePosixPath(pattern).is_absolute():
            continue
        for k in range(1, len(parts)):
            if "{" in parts[k - 1]:
                break
            folder = base.joinpath(*parts[:k])
            if folder in problems:
                break
            if (folder.exists() or folder.is_symlink()) and not folder.is_dir():
                kind = "a broken symbolic link" if not folder.exists() else "a file"
                problems[folder] = (
                    f"{'/'.join(parts[:k])} is {kind}, but the workflow writes its outputs into the "
                    f"folder {'/'.join(parts[:k])}/ (e.g. {pattern}); move or rename it, then rerun"
                )
                break
    return [problems[f] for f in sorted(problems, key=lambda f: (len(f.parts), str(f)))]


def rule_scripts(rules: Iterable[Any], repo: Path) -> dict[str, str]:
    """Rule name -> its script's path relative to ``repo`` (POSIX), for every Snakemake rule of
    ``rules`` (``workflow.rules``) with a ``script:`` directive; Snakemake resolves that path
    relative to the rule file's folder (``rule.basedir``), and so does this.

    The one map from which the numbers file names the script behind each rule
    (eibench.report.numbers.Numbers), so no script path is typed beside a number."""
    found: dict[str, str] = {}
    for r in rules:
        if r.script is None:
            continue
        path = (Path(r.basedir.get_path_or_uri(secret_free=True)) / r.script).resolve()
        found[r.name] = path.relative_to(repo.resolve()).as_posix()
    return dict(sorted(found.items()))
