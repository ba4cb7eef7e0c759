"""The reproducibility statement of the paper: the state of the source tree, the versions of the
key packages, the configuration digest and checksums of the run's inputs.

Input checksums are taken over the *release-format files* (the cohort's conversation files and
each model's EM output files, in one mode), not over the Parquet tables made from them: those
files are what one downloads or receives, and their bytes do not depend on the version of the
Parquet writer. The digest of a set of files is the sha256 of their ``sha256sum`` listing
(``<sha256>  <name>`` lines, sorted by name, the name relative to the folder listed as input;
hidden files left out), so it can be checked by hand, e.g. in the cohort's folder::

    LC_ALL=C ls | xargs sha256sum | sha256sum

Everything here is deterministic: the same tree, environment and inputs give the same rows.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import platform
import shlex
import subprocess
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml

from ..checksums import sha256_of
from .numbers import Numbers, plural

#: The packages whose versions the statement prints (distribution names), in this order.
KEY_PACKAGES = (
    "snakemake",
    "pandas",
    "numpy",
    "scipy",
    "statsmodels",
    "pingouin",
    "matplotlib",
    "seaborn",
    "typst",
    "pydantic",
    "msgspec",
    "pyarrow",
    "vaderSentiment",
    "NRCLex",
)

# What `pip freeze` leaves out by default, and this project itself (identified by its commit and
# the library digest, and listed by pip freeze with the path of its checkout).
_NOT_FROZEN = ("pip", "setuptools", "wheel", "distribute", "eibench")

NOT_A_CHECKOUT = "not a git checkout"


def git_output(repo: Path, *args: str, timeout: float) -> str:
    """The standard output of ``git -C repo args`` (read-only: ``--no-optional-locks``, so git
    does not refresh its index); CalledProcessError or TimeoutExpired as subprocess raises them."""
    command = ["git", "--no-optional-locks", "-C", str(repo), *args]
    return subprocess.run(command, capture_output=True, text=True, check=True, timeout=timeout).stdout


def git_state(repo: Path, timeout: float = 20.0) -> dict[str, Any]:
    """The commit of ``repo``'s working tree and whether it has uncommitted changes (tracked or
    untracked files that git does not ignore). ``commit`` is None when ``repo`` has no ``.git``
    of its own (a copy of the sources) or git cannot read it. Read-only: git is asked not to
    refresh its index (``--no-optional-locks``)."""
    if not (Path(repo) / ".git").exists():
        return {"commit": None, "dirty": None, "why": NOT_A_CHECKOUT}

    def git(*args: str) -> str:
        return git_output(repo, *args, timeout=timeout)

    try:
        commit = git("rev-parse", "HEAD").strip()
        dirty = bool(git("status", "--porcelain").strip())
    except (OSError, subprocess.SubprocessError) as exc:
        return {"commit": None, "dirty": None, "why": f"git could not read the checkout ({type(exc).__name__})"}
    return {"commit": commit, "dirty": dirty, "why": ""}


def describe_git(state: Mapping[str, Any]) -> str:
    """One line: the commit (and uncommitted changes), or why there is none."""
    if not state.get("commit"):
        return state.get("why") or NOT_A_CHECKOUT
    return state["commit"] + (" with uncommitted changes" if state.get("dirty") else " (clean)")


def package_versions(names: Iterable[str] = KEY_PACKAGES, freeze: bool = False) -> dict[str, str]:
    """``python`` and each package's installed version ("not installed" when absent); with
    ``freeze``, also ``pip_freeze_sha256``, the digest of the whole environment's listing."""
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    if freeze:
        out["pip_freeze_sha256"] = freeze_digest(frozen_requirements())
    return out


def frozen_requirements() -> list[str]:
    """The lines of ``pip freeze --exclude-editable`` for this environment (``Name==version``,
    sorted by lower-case name; pip, setuptools, wheel and this project left out), read from the
    installed distributions' metadata: the same lines as the command, in 60 ms instead of 0.7 s
    (tests/report/test_reproducibility.py compares them)."""
    rows = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name and name.lower() not in _NOT_FROZEN:
            rows[name.lower()] = f"{name}=={dist.version}"
    return [rows[k] for k in sorted(rows)]


def freeze_digest(lines: Iterable[str]) -> str:
    """The sha256 of a ``pip freeze`` listing as the command prints it (one line each, with a
    final newline): ``pip freeze --exclude-editable | sha256sum``."""
    return hashlib.sha256("".join(f"{line}\n" for line in lines).encode("utf-8")).hexdigest()


def listed_files(entries: Iterable[str | Path]) -> list[tuple[str, Path]]:
    """(name, path) of every file of the entries, sorted by name: a file is named by its base
    name, a folder contributes every file under it, named relative to the folder, but for
    hidden ones (such as the ``.snakemake_timestamp`` Snakemake leaves in folder outputs)."""
    files = []
    for entry in map(Path, entries):
        if entry.is_dir():
            found = ((p.relative_to(entry), p) for p in entry.rglob("*") if p.is_file())
            files += [(rel.as_posix(), p) for rel, p in found if not any(part.startswith(".") for part in rel.parts)]
        else:
            files.append((entry.name, entry))
    return sorted(files, key=lambda f: (f[0], str(f[1])))


def files_digest(entries: Iterable[str | Path]) -> tuple[int, str]:
    """Number of files and the sha256 of their ``sha256sum`` listing, sorted by name."""
    files = listed_files(entries)
    listing = "".join(f"{sha256_of(path)}  {name}\n" for name, path in files)
    return len(files), hashlib.sha256(listing.encode("utf-8")).hexdigest()


def rebuild_command(
    configfiles: Iterable[str | Path] = (), overrides: Mapping[str, Any] | None = None, workdir: Path | None = None
) -> str:
    """The command that rebuilds the paper with this configuration: ``snakemake --cores 8``
    with the extra config files (relative to ``workdir`` when inside it) and ``--config``
    overrides of the run (YAML flow style, one ``key=value`` per top-level key)."""
    parts = ["snakemake", "--cores", "8"]
    files = []
    for f in configfiles:
        path = Path(f)
        if workdir is not None and path.is_absolute():
            try:
                path = path.relative_to(workdir)
            except ValueError:
                pass
        files.append(path.as_posix())
    if files:
        parts += ["--configfile", *files]
    if overrides:
        parts.append("--config")
        for key in sorted(overrides):
            value = overrides[key]
            text = (
                value if isinstance(value, str) else yaml.safe_dump(value, default_flow_style=True, width=10**6).strip()
            )
            if text.endswith("\n..."):  # a scalar dumped as a YAML document
                text = text[: -len("\n...")]
            parts.append(f"{key}={text}")
    return " ".join(shlex.quote(p) for p in parts)


def statement(
    git: Mapping[str, Any],
    versions: Mapping[str, str],
    config_digest: str,
    inputs: Mapping[str, tuple[int, str]],
    command: str,
    library_digest: str = "",
) -> list[dict[str, Any]]:
    """The entries of the reproducibility statement, in print order: ``key`` (in numbers.json),
    ``item`` (its label in the paper's table) and ``value``. The source tree, the command, the
    configuration digest, the library digest (when given), the package versions, then per input
    set (label -> (number of files, sha256); "cohort" for the conversation files, "<model>/<mode>" for a model's EM
    output files)
    its digest, labelled with its number of files."""
    rows: list[dict[str, Any]] = [
        {"key": "repro.git", "item": "Source tree (git commit)", "value": describe_git(git)},
        {"key": "repro.git_dirty", "item": None, "value": bool(git.get("dirty"))},
        {"key": "repro.git_commit", "item": None, "value": bool(git.get("commit"))},
        # The command that rebuilds these bytes (cores do not change them), not the one typed.
        {"key": "repro.command", "item": "Rebuild command", "value": command},
        {"key": "repro.config_digest", "item": "Configuration digest", "value": config_digest},
    ]
    if library_digest:  # eibench.code_digest: the library files the rule scripts run
        rows.append(
            {
                "key": "repro.library_digest",
                "item": "Library digest (workflow/eibench files the rules run)",
                "value": library_digest,
            }
        )
    rows += [
        {"key": f"repro.version.{name}", "item": "Python" if name == "python" else name, "value": version}
        for name, version in versions.items()
        if name != "pip_freeze_sha256"
    ]
    if "pip_freeze_sha256" in versions:
        rows.append(
            {
                "key": "repro.pip_freeze_sha256",
                "item": "pip freeze --exclude-editable | sha256sum",
                "value": versions["pip_freeze_sha256"],
            }
        )
    for label, (n, digest) in inputs.items():
        rows.append({"key": f"repro.input.{label}.n_files", "item": None, "value": int(n)})
        files = f"{n} {plural(int(n), 'file', 'files')}"
        item = f"Conversation files ({n})" if label == "cohort" else f"Predictions {label} ({files})"
        rows.append({"key": f"repro.input.{label}.sha256", "item": item, "value": digest})
    return rows


def add_reproducibility(
    nums: Numbers,
    git: Mapping[str, Any],
    versions: Mapping[str, str],
    config_digest: str,
    command: str,
    library_digest: str,
    cohort_files: Iterable[str | Path],
    prediction_sets: Mapping[str, Iterable[str | Path]],
) -> None:
    """Add the reproducibility statement (:func:`statement`) to ``nums`` as entries of rule
    paper_numbers, the digests of the cohort's files and of each prediction set ("<model>/<mode>"
    -> its EM output files) included, and list its printed rows in ``nums.meta["reproducibility"]``."""
    inputs = {"cohort": files_digest(cohort_files)}
    inputs |= {label: files_digest(paths) for label, paths in sorted(prediction_sets.items())}
    rows = statement(git, versions, config_digest, inputs, command, library_digest)
    for row in rows:
        nums.add(row["key"], row["value"], "paper_numbers")
    nums.meta["reproducibility"] = [{"item": r["item"], "key": r["key"]} for r in rows if r["item"]]
